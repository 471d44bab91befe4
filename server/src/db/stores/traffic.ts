/**
 * The gateway traffic store (stores/traffic.ts): upserts by direct SQL, bucket sums with Prisma.
 */
import type { TrafficStore } from "../../stores/traffic.js";
import type { Executor } from "./executor.js";

/** The gateway traffic store over `x`. */
export function trafficStore(x: Executor): TrafficStore {
  const { prisma, sql } = x;
  return {
    async add(counts) {
      // One statement per key on both providers: another instance's row for the key is added to, atomically.
      await Promise.all(
        counts.map((c) =>
          sql.run(
            `INSERT INTO "GatewayTraffic" ("minute", "api", "clientId", "statusClass", "count") VALUES (?, ?, ?, ?, ?)
             ON CONFLICT ("minute", "api", "clientId", "statusClass") DO UPDATE SET "count" = "GatewayTraffic"."count" + excluded."count"`,
            [c.minute, c.api, c.clientId, c.statusClass, c.count],
          ),
        ),
      );
    },
    async countIn(starts, bucketMs) {
      const perBucket = await Promise.all(
        starts.map(async (start) => {
          const groups = await prisma.gatewayTraffic.groupBy({
            by: ["api", "clientId", "statusClass"],
            where: { minute: { gte: start, lt: new Date(start.getTime() + bucketMs) } },
            _sum: { count: true },
          });
          return groups.map((g) => ({ start, api: g.api, clientId: g.clientId, statusClass: g.statusClass, count: g._sum.count ?? 0 }));
        }),
      );
      return perBucket.flat();
    },
    async deleteBefore(before, limit) {
      const minutes = await prisma.gatewayTraffic.findMany({ where: { minute: { lt: before } }, select: { minute: true }, distinct: ["minute"], orderBy: { minute: "asc" }, take: limit });
      if (minutes.length === 0) return 0;
      return (await prisma.gatewayTraffic.deleteMany({ where: { minute: { lte: minutes[minutes.length - 1]!.minute } } })).count;
    },
  };
}
