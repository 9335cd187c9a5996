package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"text/tabwriter"
	"time"
)

// statsAnswer is GET /api/stats.
type statsAnswer struct {
	Collections                   map[string]map[string]map[string]int64 `json:"collections"`
	Window                        string                                 `json:"window,omitempty"`
	Since                         string                                 `json:"since,omitempty"`
	OpenDeadLetters               int64                                  `json:"openDeadLetters"`
	OldestPendingOutboxAgeSeconds *float64                               `json:"oldestPendingOutboxAgeSeconds,omitempty"`
	OpenBreakers                  []struct {
		PartnerID string `json:"partnerId"`
		State     string `json:"state"`
		OpenUntil string `json:"openUntil,omitempty"`
		LastError string `json:"lastError,omitempty"`
	} `json:"openBreakers"`
	EventRate json.RawMessage `json:"eventRate,omitempty"`
}

// stats is `streamops stats`: counts by status and type per collection.
func stats(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, newClient := newCommand("stats", "", stderr)
	window := fs.String("window", "", "only documents of this recent period, e.g. 1h (default: all)")
	asJSON := fs.Bool("json", false, "print the API's answer as it is")
	c, err := parseClient(fs, args, newClient)
	if err != nil {
		return err
	}
	q := url.Values{}
	if *window != "" {
		q.Set("window", *window)
	}
	var st statsAnswer
	if err := c.do(ctx, "GET", "/api/stats", q, nil, &st); err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(st)
	}
	fmt.Fprintf(stdout, "open dead letters: %d\n", st.OpenDeadLetters)
	if st.OldestPendingOutboxAgeSeconds != nil {
		fmt.Fprintf(stdout, "oldest pending outbox entry: %s\n", time.Duration(*st.OldestPendingOutboxAgeSeconds*float64(time.Second)).Round(time.Second))
	}
	for _, b := range st.OpenBreakers {
		fmt.Fprintf(stdout, "breaker %s: partner %s, until %s: %s\n", b.State, b.PartnerID, b.OpenUntil, b.LastError)
	}
	if st.Window != "" {
		fmt.Fprintf(stdout, "since %s (%s)\n", st.Since, st.Window)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COLLECTION\tFIELD\tVALUE\tCOUNT")
	for _, coll := range slices.Sorted(maps.Keys(st.Collections)) {
		fields := st.Collections[coll]
		for _, field := range slices.Sorted(maps.Keys(fields)) {
			counts := fields[field]
			if len(counts) == 0 {
				fmt.Fprintf(tw, "%s\t%s\t-\t0\n", coll, field)
			}
			for _, v := range slices.Sorted(maps.Keys(counts)) {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", coll, field, v, counts[v])
			}
		}
	}
	return tw.Flush()
}
