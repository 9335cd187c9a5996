package main

import "fmt"

// partitionsBench is internal/partitionbench's benchmark: the same load
// on local stacks of 3 and of 12 partitions a topic.
const partitionsBench = "BenchmarkPartitionScaling/3-vs-12"

// partitions adds, on each engine, the row of the workflow-processor's
// total records/s with 12 partitions against 3, the goal being that it
// grows; the records/s per partition of each side are in the measured
// column, where the store's saturation shows (per partition falls as
// partitions are added).
func (t *table) partitions(results map[string]map[string]result, engines []string) {
	for _, e := range engines {
		r := t.of(results[e], partitionsBench)
		rw := row{measure: "workflow-processor records/s, 12 partitions / 3 (local stack, same load)", engine: e, goal: "> 1"}
		p3, p12 := r["p3-records/s"], r["p12-records/s"]
		if p3 <= 0 || p12 <= 0 {
			rw.missing = true
			t.add(rw)
			continue
		}
		rw.measured = fmt.Sprintf("%s vs %s records/s (%s vs %s a partition)",
			num(p12), num(p3), num(r["p12-records/s/partition"]), num(r["p3-records/s/partition"]))
		rw.figure, rw.met = fmt.Sprintf("%.2f", p12/p3), p12 > p3
		t.add(rw)
	}
}
