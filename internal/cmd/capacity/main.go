// Command capacity writes docs/capacity.md, the capacity model, from the
// measured constants (docs/capacity/constants.json) and AWS's published
// quotas and prices (internal/capacity):
//
//	go run ./internal/cmd/capacity > docs/capacity.md
//
// -rate and -workflow-fraction set the target; the committed page is the
// defaults' (10,000 webhooks/s, each starting a workflow).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/streamops/streamops/internal/capacity"
)

func main() {
	rate := flag.Float64("rate", capacity.DefaultTarget.Rate, "accepted webhooks per second")
	fraction := flag.Float64("workflow-fraction", capacity.DefaultTarget.WorkflowFraction, "share of the webhooks that start a workflow, 0 to 1")
	constants := flag.String("constants", capacity.ConstantsPath, "the measured constants (benchtable -constants writes them)")
	flag.Parse()
	c, err := capacity.LoadConstants(*constants)
	if err == nil {
		var m capacity.Model
		m, err = capacity.Compute(c, capacity.Deployed(), capacity.Published(), capacity.Target{Rate: *rate, WorkflowFraction: *fraction})
		if err == nil {
			fmt.Print(capacity.Markdown(m, c, capacity.Published()))
			return
		}
	}
	fmt.Fprintln(os.Stderr, "capacity:", err)
	os.Exit(2)
}
