import { useCallback, useEffect, useRef, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { execute, GraphQLRequestError, type Document, type Variables } from "../api/graphql";
import { routes } from "./routes";
import { sentence } from "./text";

/** Fields whose name, split into words, would not say what they are. */
const FIELD_NAMES = new Map([
  ["jwks", "JWK Set"],
  ["jwksUri", "JWKS URI"],
  ["postLogoutRedirectUris", "Post-logout redirect URIs"],
  ["sectorIdentifierUri", "Sector identifier URI"],
  ["identityProviderId", "Sign-in"],
  ["scaAcrValues", "SCA acr values"],
  ["clientId", "Client id"],
]);

/**
 * "input.callbackUrls.0: an absolute https URL" (the server's BAD_USER_INPUT, naming the
 * field) as "Callback urls: an absolute https URL."
 */
function fieldMessage(message: string): string {
  const match = /^([A-Za-z0-9_.]+): (.+)$/s.exec(message);
  if (!match) return sentence(message);
  const field = match[1]!.split(".").filter((part) => part !== "input" && !/^\d+$/.test(part)).pop();
  if (!field) return sentence(match[2]!);
  const words = FIELD_NAMES.get(field) ?? field.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return sentence(`${words}: ${match[2]!}`);
}

/** A form's input refused before anything is sent; its message is shown as it is. */
export class FormInputError extends Error {}

/** What to tell the user about a failed call. */
export function errorMessage(err: unknown): string {
  if (err instanceof FormInputError) return err.message;
  if (!(err instanceof GraphQLRequestError)) return "Something went wrong. Please try again.";
  switch (err.code) {
    case "UNAUTHENTICATED":
      return "Your session has ended. Please sign in again.";
    case "FORBIDDEN":
      return "You need an administrator account to do this.";
    case "INTERNAL_SERVER_ERROR":
      return "Something went wrong on the server. Please try again.";
    case "BAD_USER_INPUT":
      return fieldMessage(err.message);
    default:
      return sentence(err.message);
  }
}

/**
 * Returns a function that sends the browser to the sign-in page (back here afterwards) when
 * an error says the session is gone, and tells whether it did.
 */
export function useSignedOutRedirect(): (err: unknown) => boolean {
  const navigate = useNavigate();
  const location = useLocation();
  const here = useRef("");
  here.current = `${location.pathname}${location.search}`;
  return useCallback(
    (err: unknown) => {
      if (!(err instanceof GraphQLRequestError && err.code === "UNAUTHENTICATED")) return false;
      navigate(routes.signIn(here.current), { replace: true });
      return true;
    },
    [navigate],
  );
}

const isAbort = (err: unknown) => err instanceof DOMException && err.name === "AbortError";

/**
 * Runs `document`, then hands its data to `onData`, or what to tell the user to `onError`;
 * neither once `signal` is aborted, nor for a signed-out session (`redirect` took over).
 */
function run<TData, TVariables extends Variables>(
  document: Document<TData, TVariables>,
  variables: TVariables,
  { signal, redirect }: { signal: AbortSignal; redirect: (err: unknown) => boolean },
  onData: (data: TData) => void,
  onError: (message: string) => void,
): void {
  execute(document, variables, { signal }).then(
    (data) => {
      if (!signal.aborted) onData(data);
    },
    (err: unknown) => {
      if (signal.aborted || isAbort(err) || redirect(err)) return;
      onError(errorMessage(err));
    },
  );
}

export interface QueryResult<TData> {
  /** The last answer; kept while a reload is under way. */
  data: TData | undefined;
  loading: boolean;
  error: string | null;
  reload: () => void;
  /** Replaces the data (with what a mutation returned). */
  setData: (change: (data: TData) => TData) => void;
}

/** Runs a query when the component mounts and whenever `variables` change (compared by value). */
export function useQuery<TData, TVariables extends Variables>(document: Document<TData, TVariables>, variables?: TVariables): QueryResult<TData> {
  const redirect = useSignedOutRedirect();
  const key = JSON.stringify(variables ?? {});
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<{ data: TData | undefined; loading: boolean; error: string | null }>({
    data: undefined,
    loading: true,
    error: null,
  });

  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    run(
      document,
      JSON.parse(key) as TVariables,
      { signal: controller.signal, redirect },
      (data) => setState({ data, loading: false, error: null }),
      (error) => setState((s) => ({ ...s, loading: false, error })),
    );
    return () => controller.abort();
  }, [document, key, attempt, redirect]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const setData = useCallback((change: (data: TData) => TData) => {
    setState((s) => (s.data === undefined ? s : { ...s, data: change(s.data) }));
  }, []);
  return { ...state, reload, setData };
}

export interface PageInfo {
  endCursor: string | null;
  hasNextPage: boolean;
}

export interface Connection<TNode> {
  nodes: TNode[];
  pageInfo: PageInfo;
}

export interface ConnectionResult<TNode> {
  nodes: TNode[];
  /** The first page is loading (also on reload). */
  loading: boolean;
  loadingMore: boolean;
  hasNextPage: boolean;
  error: string | null;
  loadMore: () => void;
  /** Loads the first page again. */
  reload: () => void;
  /** Changes the loaded nodes in place (after a mutation that returned the changed node). */
  update: (change: (nodes: TNode[]) => TNode[]) => void;
}

/**
 * A cursor-paginated list: the first page when mounted or when `variables` change, then
 * further pages appended by `loadMore` (`after: pageInfo.endCursor`).
 */
export function useConnection<TData, TVariables extends Variables & { after?: string | null }, TNode>(
  document: Document<TData, TVariables>,
  variables: Omit<TVariables, "after">,
  select: (data: TData) => Connection<TNode>,
): ConnectionResult<TNode> {
  const redirect = useSignedOutRedirect();
  const key = JSON.stringify(variables);
  const selectRef = useRef(select);
  selectRef.current = select;
  const [attempt, setAttempt] = useState(0);
  const [nodes, setNodes] = useState<TNode[]>([]);
  const [pageInfo, setPageInfo] = useState<PageInfo | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const more = useRef<AbortController | null>(null);

  /** Loads the first page (no `after`: replaces the nodes) or the page after `after` (appended), then calls `settle`. */
  const fetchPage = useCallback(
    (signal: AbortSignal, after: string | null | undefined, settle: () => void) => {
      const variables = { ...(JSON.parse(key) as TVariables), ...(after === undefined ? {} : { after }) };
      run(
        document,
        variables,
        { signal, redirect },
        (data) => {
          const page = selectRef.current(data);
          setNodes((prev) => (after === undefined ? page.nodes : [...prev, ...page.nodes]));
          setPageInfo(page.pageInfo);
          settle();
        },
        (message) => {
          setError(message);
          settle();
        },
      );
    },
    [document, key, redirect],
  );

  useEffect(() => {
    const controller = new AbortController();
    more.current?.abort();
    setLoading(true);
    setLoadingMore(false);
    setError(null);
    fetchPage(controller.signal, undefined, () => setLoading(false));
    return () => controller.abort();
  }, [fetchPage, attempt]);

  const loadMore = useCallback(() => {
    if (!pageInfo?.hasNextPage || loadingMore) return;
    const controller = new AbortController();
    more.current = controller;
    setLoadingMore(true);
    setError(null);
    fetchPage(controller.signal, pageInfo.endCursor, () => setLoadingMore(false));
  }, [fetchPage, pageInfo, loadingMore]);

  useEffect(() => () => more.current?.abort(), []);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { nodes, loading, loadingMore, hasNextPage: pageInfo?.hasNextPage ?? false, error, loadMore, reload, update: setNodes };
}

export interface Action {
  /** Key of the call under way (see `run`), "" for one without a key, or null. */
  pending: string | null;
  error: string | null;
  /** The last success message, for a role="status" region. */
  status: string;
  /**
   * Runs a mutation: clears the messages, tracks `pending`, then shows the success message
   * `fn` resolves to or the error. Resolves to whether it succeeded; does nothing (false)
   * while another call of this action is under way.
   */
  run: (fn: () => Promise<string | void>, key?: string) => Promise<boolean>;
  /** The state of a button that runs this action with `key`: busy while it runs, disabled while any call runs. */
  button: (key: string) => { busy: boolean; disabled: boolean };
}

/** State of the mutations of one part of a page. */
export function useAction(): Action {
  const redirect = useSignedOutRedirect();
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const running = useRef(false);
  const run = useCallback(
    async (fn: () => Promise<string | void>, key = "") => {
      if (running.current) return false;
      running.current = true;
      setPending(key);
      setError(null);
      setStatus("");
      try {
        const message = await fn();
        setStatus(message ?? "");
        return true;
      } catch (err) {
        if (!redirect(err)) setError(errorMessage(err));
        return false;
      } finally {
        running.current = false;
        setPending(null);
      }
    },
    [redirect],
  );
  const button = useCallback((key: string) => ({ busy: pending === key, disabled: pending !== null }), [pending]);
  return { pending, error, status, run, button };
}
