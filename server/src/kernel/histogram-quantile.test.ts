import { describe, expect, it } from "vitest";
import { histogramQuantile, type CumulativeBucket } from "./histogram-quantile.js";

/** Cumulative buckets of `[le, cumulative count]` pairs, with `+Inf` holding `total`. */
const buckets = (pairs: [number, number][], total: number): CumulativeBucket[] => [
  ...pairs.map(([upperBound, cumulativeCount]) => ({ upperBound, cumulativeCount })),
  { upperBound: Number.POSITIVE_INFINITY, cumulativeCount: total },
];

describe("histogramQuantile (PromQL histogram_quantile over one series)", () => {
  // 100 observations: 50 at most 0.1 s, 40 more at most 0.5 s, 10 more at most 1 s.
  const latency = buckets(
    [
      [0.1, 50],
      [0.5, 90],
      [1, 100],
    ],
    100,
  );

  it("interpolates linearly inside the bucket that holds the rank, from 0 below the first bucket", () => {
    expect(histogramQuantile(0.5, latency)).toBeCloseTo(0.1, 12); // rank 50: the top of the first bucket
    expect(histogramQuantile(0.25, latency)).toBeCloseTo(0.05, 12); // rank 25: half of [0, 0.1]
    expect(histogramQuantile(0.7, latency)).toBeCloseTo(0.3, 12); // rank 70: 20 of 40 into [0.1, 0.5]
    expect(histogramQuantile(0.95, latency)).toBeCloseTo(0.75, 12); // rank 95: 5 of 10 into [0.5, 1]
    expect(histogramQuantile(0.99, latency)).toBeCloseTo(0.95, 12); // rank 99: 9 of 10 into [0.5, 1]
  });

  it("answers the highest finite bound when the rank falls in the +Inf bucket", () => {
    const slow = buckets(
      [
        [0.1, 10],
        [1, 20],
      ],
      100,
    );
    expect(histogramQuantile(0.5, slow)).toBe(1);
    expect(histogramQuantile(0.99, slow)).toBe(1);
  });

  it("skips empty buckets: the rank lands in the first bucket that reaches it", () => {
    const gap = buckets(
      [
        [0.005, 0],
        [0.01, 0],
        [0.025, 4],
        [0.05, 4],
      ],
      4,
    );
    expect(histogramQuantile(0.5, gap)).toBeCloseTo(0.0175, 12); // rank 2: half of [0.01, 0.025]
    expect(histogramQuantile(1, gap)).toBeCloseTo(0.025, 12);
    expect(histogramQuantile(0, gap)).toBe(0); // rank 0 in the empty first bucket: its lower bound
  });

  it("answers the upper bound of a first bucket that is not positive", () => {
    expect(histogramQuantile(0.5, buckets([[0, 3]], 4))).toBe(0);
  });

  it("answers NaN without observations or usable buckets, and ±Infinity for q outside 0 to 1, as Prometheus does", () => {
    expect(histogramQuantile(0.5, buckets([[0.1, 0]], 0))).toBeNaN();
    expect(histogramQuantile(0.5, [{ upperBound: Number.POSITIVE_INFINITY, cumulativeCount: 3 }])).toBeNaN();
    expect(histogramQuantile(0.5, [{ upperBound: 0.1, cumulativeCount: 1 }, { upperBound: 1, cumulativeCount: 2 }])).toBeNaN();
    expect(histogramQuantile(Number.NaN, latency)).toBeNaN();
    expect(histogramQuantile(-0.1, latency)).toBe(Number.NEGATIVE_INFINITY);
    expect(histogramQuantile(1.1, latency)).toBe(Number.POSITIVE_INFINITY);
  });
});
