package task

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/objects"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

func attempt(typ events.TaskType, data string) Attempt {
	return Attempt{TaskID: "task-0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f", Type: typ, Data: json.RawMessage(data),
		StartedAt: time.Date(2026, 1, 4, 1, 10, 0, 0, time.UTC)}
}

func codeOf(err error) (string, bool) {
	if te, ok := errors.AsType[*fault.Error](err); ok {
		return te.Code, te.Retryable
	}
	return "", err != nil
}

type recordingMailer struct{ sent []Email }

func (m *recordingMailer) Send(_ context.Context, e Email) (string, error) {
	m.sent = append(m.sent, e)
	return "msg-1", nil
}

func TestEmailExecutorRendersTheTemplateAndRefusesBadRecipients(t *testing.T) {
	tests := []struct {
		name, data    string
		subject, text string
		code          string
		retryable     bool
	}{
		{"seed example", `{"recipient":"user@example.com","subject":"Welcome to StreamOps","template":"welcome_email"}`,
			"Welcome to StreamOps", "Welcome to StreamOps. Your account is ready.", "", false},
		{"template variables", `{"recipient":"Ops <ops@example.com>","template":"workflow_notification","workflowName":"Order Sync","workflowId":"wf-1","records":3}`,
			"Workflow Order Sync", "Workflow Order Sync (wf-1) processed 3 records.", "", false},
		{"a body replaces the template", `{"recipient":"a@example.com","subject":"Hi\r\nBcc: x@evil.test","body":"plain"}`,
			"Hi Bcc: x@evil.test", "plain", "", false},
		{"no recipient", `{"template":"welcome_email"}`, "", "", CodeInvalidRecipient, false},
		{"recipient id only", `{"recipientId":"cus_123"}`, "", "", CodeInvalidRecipient, false},
		{"not an address", `{"recipient":"user at example"}`, "", "", CodeInvalidRecipient, false},
		{"unknown template", `{"recipient":"a@example.com","template":"nope"}`, "", "", CodeUnknownTemplate, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &recordingMailer{}
			res, err := EmailExecutor{Mailer: m}.Execute(context.Background(), attempt(events.TaskEmailNotification, tt.data))
			if tt.code != "" {
				code, retryable := codeOf(err)
				assert.Equal(t, tt.code, code)
				assert.Equal(t, tt.retryable, retryable)
				assert.Empty(t, m.sent)
				return
			}
			require.NoError(t, err)
			require.Len(t, m.sent, 1)
			assert.Equal(t, tt.subject, m.sent[0].Subject)
			assert.Contains(t, m.sent[0].Text, tt.text)
			assert.Equal(t, Result{"emailSent": true, "messageId": "msg-1"}, res)
		})
	}
}

func TestFileMailerWritesOneEMLPerTask(t *testing.T) {
	dir := t.TempDir()
	m := FileMailer{Dir: dir, Now: func() time.Time { return time.Date(2026, 1, 4, 1, 10, 0, 0, time.UTC) }}
	e := Email{ID: "task-1", To: "<user@example.com>", Subject: "Grüße", Text: "Hello\nWorld"}
	id, err := m.Send(context.Background(), e)
	require.NoError(t, err)
	_, err = m.Send(context.Background(), e)
	require.NoError(t, err, "a repeated attempt overwrites its own file")
	assert.Equal(t, "<task-1@streamops.local>", id)

	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	require.Equal(t, []string{filepath.Join(dir, "task-1.eml")}, files)
	raw, err := os.ReadFile(files[0])
	require.NoError(t, err)
	eml := string(raw)
	for _, want := range []string{"From: StreamOps <streamops@localhost>\r\n", "To: <user@example.com>\r\n",
		"Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\r\n", "Date: Sun, 04 Jan 2026 01:10:00 +0000\r\n",
		"Message-ID: <task-1@streamops.local>\r\n", "\r\n\r\nHello\r\nWorld"} {
		assert.Contains(t, eml, want)
	}
}

type fakeDocs struct {
	docs []json.RawMessage
	err  error
	q    store.ExportQuery
}

func (f *fakeDocs) ExportDocuments(_ context.Context, q store.ExportQuery) ([]json.RawMessage, error) {
	f.q = q
	return f.docs, f.err
}

// memObjects keeps the bodies put, by bucket/key.
type memObjects map[string][]byte

func (m memObjects) Put(_ context.Context, o objects.Object) (string, error) {
	body, err := io.ReadAll(o.Body)
	if err != nil {
		return "", err
	}
	m[o.Bucket+"/"+o.Key] = body
	return "mem://" + o.Bucket + "/" + o.Key, nil
}

func TestDataExportWritesJSONOrCSV(t *testing.T) {
	docs := []json.RawMessage{json.RawMessage(`{"_id":"a","n":1,"tags":["x"]}`), json.RawMessage(`{"_id":"b","name":"B, Inc."}`)}
	tests := []struct {
		name, data, key, body string
		code                  string
	}{
		{"json by default", `{"collection":"workflow_records","filter":{"dataset":"orders"}}`,
			"/exports/workflow_records/task-0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f.json", `[{"_id":"a","n":1,"tags":["x"]},{"_id":"b","name":"B, Inc."}]`, ""},
		{"csv to a destination", `{"collection":"tasks","format":"csv","destination":"s3://bkt/out/t.csv"}`,
			"bkt/out/t.csv", "_id,n,name,tags\na,1,,\"[\"\"x\"\"]\"\nb,,\"B, Inc.\",\n", ""},
		{"no collection", `{"format":"csv"}`, "", "", CodeInvalidData},
		{"unknown format", `{"collection":"tasks","format":"xml"}`, "", "", CodeInvalidData},
		{"bad destination", `{"collection":"tasks","destination":"ftp://x/y"}`, "", "", CodeInvalidDestination},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := memObjects{}
			src := &fakeDocs{docs: docs}
			res, err := DataExportExecutor{Source: src, Objects: objs}.Execute(context.Background(), attempt(events.TaskDataExport, tt.data))
			if tt.code != "" {
				code, _ := codeOf(err)
				assert.Equal(t, tt.code, code)
				return
			}
			require.NoError(t, err)
			require.Contains(t, objs, tt.key)
			assert.Equal(t, tt.body, string(objs[tt.key]))
			assert.Equal(t, 2, res["records"])
		})
	}

	_, err := DataExportExecutor{Source: &fakeDocs{err: &store.ExportQueryError{Reason: "nope"}}, Objects: memObjects{}}.
		Execute(context.Background(), attempt(events.TaskDataExport, `{"collection":"webhook_events"}`))
	_, retryable := codeOf(err)
	assert.False(t, retryable, "a query that can never run is permanent")
	_, err = DataExportExecutor{Source: &fakeDocs{err: errors.New("connection refused")}, Objects: memObjects{}}.
		Execute(context.Background(), attempt(events.TaskDataExport, `{"collection":"tasks"}`))
	_, retryable = codeOf(err)
	assert.True(t, retryable, "an unreachable store is worth a retry")
}

type fakeCounter struct{ from, to time.Time }

func (f *fakeCounter) CountEventsByType(_ context.Context, from, to time.Time) (map[string]int, error) {
	f.from, f.to = from, to
	return map[string]int{"workflow.completed": 4, "workflow.failed": 1, "task.dead_letter": 2}, nil
}

func TestReportCountsThePeriodsEvents(t *testing.T) {
	tests := []struct {
		name, data string
		from, to   string
		key        string
		code       string
	}{
		{"a month", `{"reportType":"monthly_summary","period":"2025-12"}`, "2025-12-01T00:00:00Z", "2026-01-01T00:00:00Z",
			"/reports/monthly_summary/2025-12/task-0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f.json", ""},
		{"a day", `{"reportType":"daily","period":"2026-01-03"}`, "2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z",
			"/reports/daily/2026-01-03/task-0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f.json", ""},
		{"from and to", `{"reportType":"x/y","from":"2026-01-01T00:00:00Z","to":"2026-01-02T12:00:00Z"}`, "2026-01-01T00:00:00Z", "2026-01-02T12:00:00Z",
			"/reports/x_y/20260101T000000-20260102T120000/task-0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f.json", ""},
		{"no period", `{"reportType":"x"}`, "", "", "", CodeInvalidPeriod},
		{"bad period", `{"reportType":"x","period":"Q4"}`, "", "", "", CodeInvalidPeriod},
		{"no report type", `{"period":"2025-12"}`, "", "", "", CodeInvalidData},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, counter := memObjects{}, &fakeCounter{}
			res, err := ReportExecutor{Events: counter, Objects: objs}.Execute(context.Background(), attempt(events.TaskReportGeneration, tt.data))
			if tt.code != "" {
				code, retryable := codeOf(err)
				assert.Equal(t, tt.code, code)
				assert.False(t, retryable)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.from, counter.from.Format(time.RFC3339))
			assert.Equal(t, tt.to, counter.to.Format(time.RFC3339))
			require.Contains(t, objs, tt.key)
			var r map[string]any
			require.NoError(t, json.Unmarshal(objs[tt.key], &r))
			assert.EqualValues(t, 7, r["totalEvents"])
			assert.EqualValues(t, map[string]any{"created": 0.0, "completed": 4.0, "failed": 1.0}, r["workflows"])
			assert.Equal(t, 7, res["totalEvents"])
		})
	}
}

func TestFailedEventIsRebuiltWithTheIDAndPayloadTheProcessorGaveIt(t *testing.T) {
	failedAt := time.Date(2026, 1, 4, 1, 10, 5, 0, time.UTC)
	next := failedAt.Add(30 * time.Second)
	lastErr := &events.TaskError{Code: "SMTP_ERROR", Message: "Connection timeout to mail server", Retryable: true}
	tk := store.Task{TaskID: "task-0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f", Type: "email_notification", Data: store.JSONDoc(`{"recipient":"a@example.com"}`),
		Status: status.TaskFailed, RetryCount: 2, MaxRetries: 3, NextRetryAt: &next, LastError: lastErr, CorrelationID: "hook-1",
		PartnerID: "acme", CreatedAt: failedAt.Add(-time.Minute), UpdatedAt: failedAt}

	env, err := failedEvent(FromDocument(tk))
	require.NoError(t, err)
	assert.Equal(t, events.DeriveID(events.EventIDPrefix, tk.TaskID, "task.failed", "1"), env.EventID,
		"the id of the failure of attempt 1, which scheduled retry 2")
	st := FromDocument(tk)
	id, ok := st.RetryEventID()
	assert.True(t, ok)
	assert.Equal(t, env.EventID, id, "the event that drives the task on")
	p, err := events.PayloadAs[events.TaskFailedPayload](env)
	require.NoError(t, err)
	assert.Equal(t, events.TaskFailedPayload{TaskID: tk.TaskID, FailedAt: events.At(failedAt), RetryCount: 2, MaxRetries: 3,
		Error: *lastErr, NextRetryAt: events.At(next)}, p)
	assert.Equal(t, RetrySource, env.Metadata.Source)
	assert.Equal(t, "hook-1", env.Metadata.CorrelationID)
	assert.Equal(t, "acme", env.Metadata.PartnerID)

	tk.RetryCount, tk.Status = 0, status.TaskPending
	st = FromDocument(tk)
	_, ok = st.RetryEventID()
	assert.False(t, ok, "attempt 0 is driven by its task.created")
	tk.RetryCount, tk.Status, tk.NextRetryAt = 2, status.TaskFailed, nil
	_, err = failedEvent(FromDocument(tk))
	assert.Error(t, err, "only a task with a retry scheduled has a task.failed")
}

func TestDefaultBackoffIsThirtySecondsDoublingCappedAtAnHourWithFullJitter(t *testing.T) {
	b := DefaultBackoff
	var ceilings []time.Duration
	for retry := 1; retry <= 9; retry++ {
		var most time.Duration
		for range 200 {
			d := b.Delay(retry)
			require.GreaterOrEqual(t, d, time.Duration(0))
			most = max(most, d)
		}
		ceilings = append(ceilings, most)
	}
	limits := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute,
		16 * time.Minute, 32 * time.Minute, time.Hour, time.Hour}
	for i, most := range ceilings {
		assert.LessOrEqual(t, most, limits[i], "retry %d", i+1)
		assert.Greater(t, most, limits[i]/2, "retry %d spreads over its whole range", i+1)
	}
}
