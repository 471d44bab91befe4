/**
 * Quantiles of a Prometheus histogram, computed from its cumulative buckets as PromQL's
 * `histogram_quantile` computes them (prometheus/promql/quantile.go `bucketQuantile`): the
 * bucket that holds the rank `q × count` is found, and the value is interpolated linearly between
 * its lower and upper bound, as if its observations were spread evenly across it. The first
 * bucket's lower bound is 0 (when its upper bound is positive); a rank in the `+Inf` bucket
 * answers the highest finite bound, since nothing is known above it.
 *
 * The unit is the histogram's own: the latency histograms of kernel/metrics.ts are in seconds,
 * and so are the quantiles of their buckets.
 */

/** One cumulative bucket (Prometheus `le`): how many observations were at most `upperBound`. */
export interface CumulativeBucket {
  /** The bucket's upper bound (`le`), in the histogram's unit; `Infinity` for the last bucket. */
  upperBound: number;
  /** Observations at most `upperBound`, since the histogram was created. */
  cumulativeCount: number;
}

/**
 * The `q`-quantile of a histogram (`histogram_quantile(q, …)` of one series).
 * @param q - the quantile, 0 to 1 (0.5 the median, 0.99 the 99th percentile).
 * @param buckets - cumulative buckets sorted by upper bound, the last one `+Inf` (its count is the total).
 * @returns the quantile in the buckets' unit (seconds for the latency histograms); NaN without
 *   observations, for fewer than two buckets, a last bucket that is not `+Inf`, or a q that is
 *   NaN; -Infinity for q < 0 and +Infinity for q > 1, as Prometheus answers.
 */
export function histogramQuantile(q: number, buckets: readonly CumulativeBucket[]): number {
  if (Number.isNaN(q)) return Number.NaN;
  if (q < 0) return Number.NEGATIVE_INFINITY;
  if (q > 1) return Number.POSITIVE_INFINITY;
  const last = buckets.at(-1);
  if (buckets.length < 2 || last === undefined || last.upperBound !== Number.POSITIVE_INFINITY) return Number.NaN;
  const observations = last.cumulativeCount;
  if (!(observations > 0)) return Number.NaN;
  let rank = q * observations;
  // The first finite bucket whose count reaches the rank; the +Inf bucket when none does.
  let b = buckets.findIndex((bucket, i) => i < buckets.length - 1 && bucket.cumulativeCount >= rank);
  if (b === -1) b = buckets.length - 1;
  if (b === buckets.length - 1) return buckets[buckets.length - 2]!.upperBound;
  if (b === 0 && buckets[0]!.upperBound <= 0) return buckets[0]!.upperBound;
  const end = buckets[b]!.upperBound;
  let start = 0;
  let count = buckets[b]!.cumulativeCount;
  if (b > 0) {
    start = buckets[b - 1]!.upperBound;
    count -= buckets[b - 1]!.cumulativeCount;
    rank -= buckets[b - 1]!.cumulativeCount;
  }
  // An empty bucket holds the rank only when the rank is 0 (q = 0): its lower bound.
  return count === 0 ? start : start + (end - start) * (rank / count);
}
