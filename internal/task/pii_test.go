package task_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/testenv"
)

// refusingMailer fails every send the way its provider does.
type refusingMailer func() error

func (m refusingMailer) Send(context.Context, task.Email) (string, error) { return "", m() }

// TestAnExecutorsErrorIsKeptWithoutThePersonalDataItQuotes: an executor
// whose provider's error quotes an email, a phone number, a card number and
// an IBAN fails its task until it is dead-lettered; none of them is then
// in clear in the task's lastError, its task.failed and task.dead_letter
// events (their message and stack), the stored dead letter, or the
// tasks.dlq record's dlq-error header.
func TestAnExecutorsErrorIsKeptWithoutThePersonalDataItQuotes(t *testing.T) {
	said := "MessageRejected: not verified: " + testenv.PersonalText
	tests := []struct {
		name       string
		maxRetries int
		fail       func() error
		want       []string
	}{
		{"an untyped provider error, retried once", 1, func() error { return errors.New(said) },
			[]string{"task.created", "task.processing(0)", "task.failed(1)", "task.processing(1)", "task.dead_letter(1)"}},
		{"a classified error whose message quotes them", 3,
			func() error { return fault.Permanent(task.CodeEmail, "SES refused: %w", errors.New(said)) },
			[]string{"task.created", "task.processing(0)", "task.dead_letter(0)"}},
		{"a panic quoting them", 0, func() error { panic(said) },
			[]string{"task.created", "task.processing(0)", "task.dead_letter(0)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, emailOnly(refusingMailer(tc.fail)))
			id := events.NewTaskID()
			h.submit(t, emailPayload(id, tc.maxRetries))
			for range tc.maxRetries + 1 {
				h.drain(t)
				if status.TaskIsFinal(h.task(t, id).Status) {
					break
				}
				h.drain(t) // the task.failed, before it is due
				h.sweep(t, h.task(t, id).RetryCount)
			}
			h.drain(t)
			lifecycle := h.Lifecycle(t, id)
			require.Equal(t, tc.want, steps(t, lifecycle))
			tk := h.task(t, id)
			require.Equal(t, status.TaskDeadLetter, tk.Status)
			require.NotNil(t, tk.LastError)
			assert.Contains(t, tk.LastError.Message, "[redacted:email]", "the error is kept, scrubbed")
			dead := h.DeadLetters(t, store.DeadLetterQuery{Topic: events.TopicTasks})
			require.Len(t, dead, 1)
			assert.Contains(t, dead[0].Error, "[redacted:card]")
			var dlqErrors []string
			for _, r := range h.Env.Records(t, events.DLQTopic(events.TopicTasks)) {
				for _, hd := range r.Headers {
					if hd.Key == "dlq-error" {
						dlqErrors = append(dlqErrors, string(hd.Value))
					}
				}
			}
			require.Len(t, dlqErrors, 1)
			assert.Contains(t, dlqErrors[0], "[redacted:iban]")

			testenv.AssertNoneInClear(t, map[string]any{"the task": tk, "its events": lifecycle,
				"the dead letter": dead[0], "the dlq-error header": dlqErrors})
		})
	}
}
