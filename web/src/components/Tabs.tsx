import { useId, useRef, type KeyboardEvent, type ReactNode } from "react";
import { useSearchParams } from "react-router";

/** One tab: its key in the URL (`?tab=<key>`), its label and what its panel shows. */
export interface Tab {
  key: string;
  label: string;
  content: () => ReactNode;
}

/** The tab a URL's `tab` parameter names, or the first when it names none of `keys`. */
export function currentTab(keys: readonly string[], value: string | null): string {
  return value !== null && keys.includes(value) ? value : keys[0]!;
}

/**
 * Tabs (WAI-ARIA Authoring Practices, tabs with automatic activation): a tablist named
 * `label`, each tab a button; Left/Right arrows move to the previous or next tab (wrapping),
 * Home and End to the first and last; only the selected tab is in the tab order, and its panel
 * follows it. The selected tab is the URL's `tab` parameter, so a link opens a tab and the back
 * button returns to the one before; the other parameters are kept. Only the selected panel is rendered.
 */
export function Tabs({ label, tabs }: { label: string; tabs: readonly Tab[] }) {
  const [params, setParams] = useSearchParams();
  const base = useId();
  const refs = useRef(new Map<string, HTMLButtonElement>());
  const selected = currentTab(
    tabs.map((t) => t.key),
    params.get("tab"),
  );
  const tabId = (key: string) => `${base}-tab-${key}`;
  const panelId = (key: string) => `${base}-panel-${key}`;

  function select(key: string, focus = false) {
    if (key !== selected) {
      const next = new URLSearchParams(params);
      next.set("tab", key);
      setParams(next);
    }
    if (focus) refs.current.get(key)?.focus();
  }

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const index = tabs.findIndex((t) => t.key === selected);
    const to = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    select(tabs[(to + tabs.length) % tabs.length]!.key, true);
  }

  const current = tabs.find((t) => t.key === selected)!;
  return (
    <div className="tabs">
      <div role="tablist" aria-label={label} className="tab-list" onKeyDown={onKeyDown}>
        {tabs.map((t) => (
          <button
            key={t.key}
            ref={(el) => {
              if (el) refs.current.set(t.key, el);
              else refs.current.delete(t.key);
            }}
            type="button"
            role="tab"
            id={tabId(t.key)}
            aria-selected={t.key === selected}
            aria-controls={panelId(t.key)}
            tabIndex={t.key === selected ? 0 : -1}
            className="tab"
            onClick={() => select(t.key)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={panelId(selected)} aria-labelledby={tabId(selected)} tabIndex={0} className="tab-panel">
        {current.content()}
      </div>
    </div>
  );
}
