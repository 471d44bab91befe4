import { describe, expect, it } from "vitest";
import { idleState, lastServerAnswer, noteServerAnswer, onServerAnswer } from "./activity";

describe("idleState", () => {
  const start = Date.UTC(2026, 10, 29, 12, 0, 0);

  it("counts the seconds left from the last answer, rounding up", () => {
    expect(idleState(start, 900, start)).toEqual({ secondsLeft: 900, warn: false });
    expect(idleState(start, 900, start + 779_500)).toEqual({ secondsLeft: 121, warn: false });
    expect(idleState(start, 900, start + 780_000)).toEqual({ secondsLeft: 120, warn: true });
    expect(idleState(start, 900, start + 899_001)).toEqual({ secondsLeft: 1, warn: true });
  });

  it("never goes below zero", () => {
    expect(idleState(start, 900, start + 3_600_000)).toEqual({ secondsLeft: 0, warn: true });
  });

  it("warns for the last fifth of a limit shorter than ten minutes", () => {
    expect(idleState(start, 60, start + 47_000)).toEqual({ secondsLeft: 13, warn: false });
    expect(idleState(start, 60, start + 48_000)).toEqual({ secondsLeft: 12, warn: true });
  });
});

describe("server answers", () => {
  it("are told to listeners until they unsubscribe, and remembered", () => {
    const heard: number[] = [];
    const stop = onServerAnswer((at) => heard.push(at));
    noteServerAnswer();
    expect(heard).toEqual([lastServerAnswer()]);
    stop();
    noteServerAnswer();
    expect(heard).toHaveLength(1);
  });
});
