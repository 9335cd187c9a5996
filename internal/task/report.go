package task

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/objects"
)

// EventCounter counts stored events by type over a period;
// *store.Store implements it (store.CountEventsByType).
type EventCounter interface {
	CountEventsByType(ctx context.Context, from, to time.Time) (map[string]int, error)
}

// reportData is the data of a report_generation task.
type reportData struct {
	// ReportType names the report, e.g. "monthly_summary".
	ReportType string `json:"reportType"`
	// Period is a month ("2025-12") or a day ("2025-12-31"); or give From
	// and To (RFC 3339, To exclusive).
	Period string     `json:"period"`
	From   *time.Time `json:"from"`
	To     *time.Time `json:"to"`
	// Destination is s3://bucket/key or a key; default
	// reports/<reportType>/<period>/<taskId>.json.
	Destination string `json:"destination"`
}

// report is the document a report_generation task stores.
type report struct {
	ReportType   string         `json:"reportType"`
	TaskID       string         `json:"taskId"`
	Period       reportPeriod   `json:"period"`
	GeneratedAt  events.Time    `json:"generatedAt"`
	TotalEvents  int            `json:"totalEvents"`
	EventsByType map[string]int `json:"eventsByType"`
	Workflows    map[string]int `json:"workflows"`
	Tasks        map[string]int `json:"tasks"`
}

type reportPeriod struct {
	Label string      `json:"label"`
	From  events.Time `json:"from"`
	To    events.Time `json:"to"`
}

func init() {
	registerExecutor(events.TaskReportGeneration, func(b Backends, st ReadStore) Executor {
		return ReportExecutor{Events: st, Objects: b.Objects}
	})
}

// ReportExecutor runs report_generation tasks: it counts the events of a
// period in the store by type and stores the report as JSON.
type ReportExecutor struct {
	Events  EventCounter
	Objects objects.Store
}

var keySafe = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// Execute builds and stores the report. A missing report type or a period
// that does not parse fail permanently.
func (x ReportExecutor) Execute(ctx context.Context, a Attempt) (Result, error) {
	var d reportData
	if err := decodeData(a, &d); err != nil {
		return nil, err
	}
	if err := requireField(a, "reportType", d.ReportType); err != nil {
		return nil, err
	}
	period, err := parsePeriod(d)
	if err != nil {
		return nil, err
	}
	counts, err := x.Events.CountEventsByType(ctx, period.From.Time, period.To.Time)
	if err != nil {
		return nil, fault.Retryable(CodeReport, err)
	}
	r := report{
		ReportType: d.ReportType, TaskID: a.TaskID, Period: period, GeneratedAt: events.At(a.StartedAt),
		EventsByType: counts,
		Workflows: map[string]int{
			"created": counts[string(events.WorkflowCreated)], "completed": counts[string(events.WorkflowCompleted)],
			"failed": counts[string(events.WorkflowFailed)],
		},
		Tasks: map[string]int{
			"created": counts[string(events.TaskCreated)], "completed": counts[string(events.TaskCompleted)],
			"failed": counts[string(events.TaskFailed)], "deadLettered": counts[string(events.TaskDeadLetter)],
		},
	}
	for _, n := range counts {
		r.TotalEvents += n
	}
	body, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fault.Permanent(CodeReport, "encode report: %w", err)
	}
	bucket, key := "", fmt.Sprintf("reports/%s/%s/%s.json", keySafe.ReplaceAllString(d.ReportType, "_"), period.Label, a.TaskID)
	if d.Destination != "" {
		if bucket, key, err = parseDestination(d.Destination); err != nil {
			return nil, err
		}
	}
	loc, err := x.Objects.Put(ctx, objects.Object{Bucket: bucket, Key: key, ContentType: "application/json", Body: bytes.NewReader(body)})
	if err != nil {
		return nil, err
	}
	return Result{"reportGenerated": true, "location": loc, "totalEvents": r.TotalEvents}, nil
}

// parsePeriod reads the report's period: a month, a day, or from/to.
func parsePeriod(d reportData) (reportPeriod, error) {
	switch {
	case d.From != nil && d.To != nil:
		if !d.To.After(*d.From) {
			return reportPeriod{}, fault.Permanent(CodeInvalidPeriod, "report_generation data.to must be after data.from")
		}
		from, to := events.At(*d.From), events.At(*d.To)
		return reportPeriod{Label: from.Format("20060102T150405") + "-" + to.Format("20060102T150405"), From: from, To: to}, nil
	case d.Period != "":
		if t, err := time.Parse("2006-01", d.Period); err == nil {
			return reportPeriod{Label: d.Period, From: events.At(t), To: events.At(t.AddDate(0, 1, 0))}, nil
		}
		if t, err := time.Parse("2006-01-02", d.Period); err == nil {
			return reportPeriod{Label: d.Period, From: events.At(t), To: events.At(t.AddDate(0, 0, 1))}, nil
		}
		return reportPeriod{}, fault.Permanent(CodeInvalidPeriod, "report_generation data.period must be YYYY-MM or YYYY-MM-DD")
	}
	return reportPeriod{}, fault.Permanent(CodeInvalidPeriod, "report_generation needs data.period or data.from and data.to")
}
