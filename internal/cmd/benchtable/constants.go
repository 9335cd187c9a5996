package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/streamops/streamops/internal/capacity"
)

// writeConstants rewrites the capacity model's constants file at path
// (-constants; docs/capacity/constants.json) from a run's results: each
// benchmark constant from the engine, benchmark and metric the file
// names for it, dated with the run. Counted constants, and those the run
// did not measure (no MONGODB_URI, say), keep their values and dates; the
// latter are named on stderr. make capacity then regenerates
// docs/capacity.md from the file.
func writeConstants(path string, results map[string]map[string]result, run capacity.Run) error {
	c, err := capacity.LoadConstants(path)
	if err != nil {
		return err
	}
	missing := c.Refresh(run.Date, func(engine, benchmark, metric string) (float64, bool) {
		if engine == "kfake" { // the produce benchmark runs once, with the embedded ones
			engine = "embedded"
		}
		v, ok := results[engine][benchmark][metric]
		return v, ok
	})
	c.Run = run
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "benchtable: %s: not measured by this run, left as they were: %s\n", path, strings.Join(missing, ", "))
	}
	b, err := c.JSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "benchtable: wrote %s: run make capacity to regenerate docs/capacity.md\n", path)
	return nil
}
