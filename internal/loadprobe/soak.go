package loadprobe

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/streamops/streamops/internal/store"
)

// Soak is a sustained run of a Probe against a running stack that
// writes, every Interval, a row of what the stack came to: make soak.
type Soak struct {
	// Probe sends the deliveries; its Rate is the soak's rate.
	Probe *Probe
	// Store is the stack's store, whose collections are counted.
	Store *store.Store
	// DataDir is the stack's data directory, whose size is reported.
	DataDir string
	// Partner, when set, is the endpoint the deliver steps send to: each
	// row says how many deliveries it received.
	Partner *Partner
	// Duration is how long the soak runs; Interval how long a row's
	// window is. Default 10 minutes and 1 minute.
	Duration, Interval time.Duration
}

// SoakRow is one window of a soak.
type SoakRow struct {
	// End is when the window ended, from the soak's start.
	End time.Duration
	// Report is the window's deliveries.
	Report Report
	// Partner is how many deliveries the partner received in it.
	Partner int64
	// RSS and Data are the process's resident set and the data
	// directory's size at its end, in bytes.
	RSS, Data int64
	// Documents are the collections' counts at its end.
	Documents map[string]int64
}

// Run soaks, writing the table's header, each row as its window ends
// and, last, the verdict (Verdict) to out. It returns the rows; ctx
// ending stops it early, with the rows so far.
func (s Soak) Run(ctx context.Context, out io.Writer) ([]SoakRow, error) {
	if s.Duration <= 0 {
		s.Duration = 10 * time.Minute
	}
	if s.Interval <= 0 {
		s.Interval = time.Minute
	}
	counts, err := s.Store.DocumentCounts(ctx)
	if err != nil {
		return nil, err
	}
	colls := slices.Sorted(maps.Keys(counts))
	tw := tabwriter.NewWriter(out, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "time\tdeliveries/s\tp50-ms\tp99-ms\terrors\tpartner\trss-mb\tdata-mb\t%s\t\n", strings.Join(colls, "\t"))
	tw.Flush()
	start := time.Now()
	var rows []SoakRow
	var partnerBefore int64
	for end := s.Interval; end <= s.Duration && ctx.Err() == nil; end += s.Interval {
		wctx, cancel := context.WithDeadline(ctx, start.Add(end))
		rep, err := s.Probe.Run(wctx, 0)
		cancel()
		if err != nil {
			return rows, err
		}
		row := SoakRow{End: time.Since(start).Round(time.Second), Report: rep, RSS: RSS(), Data: DirSize(s.DataDir)}
		if s.Partner != nil {
			n := s.Partner.Received()
			row.Partner, partnerBefore = n-partnerBefore, n
		}
		now, err := s.Store.DocumentCounts(ctx)
		if err != nil {
			return rows, err
		}
		// The header's collections: one created since (a partner's
		// breaker state) has no column.
		row.Documents = map[string]int64{}
		for _, c := range colls {
			row.Documents[c] = now[c]
		}
		rows = append(rows, row)
		l := rep.Latencies()
		fmt.Fprintf(tw, "%s\t%.1f\t%.0f\t%.0f\t%d\t%d\t%.0f\t%.1f\t", row.End, rep.PerSecond(), ms(Percentile(l, 0.5)), ms(Percentile(l, 0.99)),
			rep.Errors(), row.Partner, float64(row.RSS)/1e6, float64(row.Data)/1e6)
		for _, c := range colls {
			fmt.Fprintf(tw, "%d\t", row.Documents[c])
		}
		fmt.Fprintln(tw)
		tw.Flush()
	}
	_, err = fmt.Fprintln(out, Verdict(rows))
	return rows, err
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Verdict is the soak's last line: whether throughput and p99 stayed
// flat, and RSS, data and each collection's documents bounded, from the
// second row (the first warms up) to the last. Throughput is flat when
// the last row keeps at least 0.8 of the second's, p99 when it is at
// most 1.25 times it (the latency row's goals, docs/performance.md); a
// quantity is bounded when its last value is at most 1.1 times the
// largest before the run's last quarter, so what grows all run long is
// not, and what retention holds steady is, even when it levels off only
// past the middle of the run (a one-hour TTL in an 80-minute soak). RSS
// and data are in MB, as in the rows.
func Verdict(rows []SoakRow) string {
	if len(rows) < 3 {
		return fmt.Sprintf("soak: %d rows, too few to judge (3 or more: a longer -duration or a shorter -interval)", len(rows))
	}
	first, last := rows[1], rows[len(rows)-1]
	early := rows[:len(rows)*3/4]
	var grew []string
	ok := true
	judge := func(name string, good bool, detail string) string {
		if !good {
			ok = false
			grew = append(grew, name)
		}
		return detail
	}
	bounded := func(name string, v func(SoakRow) int64) string {
		var peak int64
		for _, r := range early {
			peak = max(peak, v(r))
		}
		end := v(last)
		good := float64(end) <= 1.1*float64(peak)
		word := "bounded"
		if !good {
			word = "grows"
		}
		return judge(name, good, fmt.Sprintf("%s %s (%d → %d)", name, word, peak, end))
	}
	tput := last.Report.PerSecond() / max(first.Report.PerSecond(), 1e-9)
	p99 := float64(last.Report.Percentile(0.99)) / float64(max(first.Report.Percentile(0.99), 1))
	parts := []string{
		judge("throughput", tput >= 0.8, fmt.Sprintf("throughput ×%.2f", tput)),
		judge("p99", p99 <= 1.25, fmt.Sprintf("p99 ×%.2f", p99)),
		bounded("RSS", func(r SoakRow) int64 { return r.RSS / 1e6 }),
		bounded("data", func(r SoakRow) int64 { return r.Data / 1e6 }),
	}
	for _, c := range slices.Sorted(maps.Keys(last.Documents)) {
		parts = append(parts, bounded(c, func(r SoakRow) int64 { return r.Documents[c] }))
	}
	verdict := "flat and bounded"
	if !ok {
		verdict = "NOT flat and bounded: " + strings.Join(grew, ", ")
	}
	return fmt.Sprintf("soak: %s (row 2 → row %d: %s)", verdict, len(rows), strings.Join(parts, ", "))
}
