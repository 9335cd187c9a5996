package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/seedtest"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// consoleConsumer is seed 003's "Manual Event Inspection" command as a
// plain franz-go client: the topic from its beginning, each record printed
// as key|value (print.key=true, key.separator="|"), until stop accepts the
// output so far or d has passed.
func consoleConsumer(t *testing.T, brokers []string, d time.Duration, stop func([]string) bool) []string {
	cmd := string(seedtest.Read(t, "003_testing.manual_event_inspection.sh"))
	for _, flag := range []string{"--from-beginning", "--property print.key=true", `--property key.separator="|"`} {
		require.Contains(t, cmd, flag)
	}
	topic := regexp.MustCompile(`--topic (\S+)`).FindStringSubmatch(cmd)[1]
	var lines []string
	testenv.Scan(t, brokers, topic, d, func(r *kgo.Record) bool {
		lines = append(lines, string(r.Key)+"|"+string(r.Value))
		return stop(lines)
	})
	return lines
}

// TestSeed003PublishTestEventAndManualInspection runs seed 003's two
// manual commands against the local stack through a plain Kafka client,
// as the commands do: the seed's test event, published as written, is
// not dead-lettered; its step "step1" is not a built-in step, so workflow
// wf-test ends failed with UNKNOWN_STEP naming it; and the console
// consumer's output has the line the seed shows, for wf-test.
func TestSeed003PublishTestEventAndManualInspection(t *testing.T) {
	s := start(t, "", nil)
	topic, key, value := seedtest.PublishTestEvent(t)
	require.Equal(t, events.TopicWorkflows, topic)
	require.Equal(t, "wf-test", string(key))
	require.NoError(t, s.kafka().ProduceSync(context.Background(), &kgo.Record{Topic: topic, Key: key, Value: value}).FirstErr())

	var wf store.Workflow
	var dead []store.DeadLetterEntry
	s.eventually(30*time.Second, func() bool {
		var page struct {
			DeadLetters []store.DeadLetterEntry `json:"deadLetters"`
		}
		require.Equal(t, http.StatusOK, s.call("GET", "/api/dead-letters?topic="+topic, nil, nil, &page))
		dead = slices.DeleteFunc(page.DeadLetters, func(d store.DeadLetterEntry) bool { return d.Key != string(key) })
		wf = store.Workflow{}
		code := s.call("GET", "/api/workflows/"+string(key), nil, nil, &wf)
		return len(dead) > 0 || code == http.StatusOK && status.WorkflowIsFinal(wf.Status)
	}, "the seed's test event neither ended its workflow nor was dead-lettered")

	for _, d := range dead {
		t.Errorf("the seed's test event was dead-lettered (%s): %s: %s", d.Processor, d.Reason, d.Error)
	}
	if len(dead) > 0 {
		t.FailNow()
	}
	assert.Equal(t, status.WorkflowFailed, wf.Status)
	if assert.NotNil(t, wf.Error, "GET /api/workflows/wf-test names the error") {
		assert.Equal(t, "UNKNOWN_STEP", wf.Error.Code)
		assert.Contains(t, wf.Error.Message, "step1")
	}

	// The seed's output line: wf-123|{"eventType":"workflow.created","eventId":"evt-456",...}
	want := fmt.Sprintf(`%s|{"eventType":"workflow.created","eventId":"test-1",`, key)
	failed := fmt.Sprintf(`%s|{"eventType":"workflow.failed",`, key)
	lines := consoleConsumer(t, s.Brokers(), 20*time.Second, func(lines []string) bool {
		return slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }) &&
			slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, failed) })
	})
	assert.True(t, slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }), "a line %s… in %q", want, lines)
	assert.True(t, slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, failed) }), "a line %s… in %q", failed, lines)

	dlq := 0
	testenv.Scan(t, s.Brokers(), events.DLQTopic(topic), time.Second, func(r *kgo.Record) bool {
		if string(r.Key) == string(key) {
			dlq++
		}
		return false
	})
	assert.Zero(t, dlq, "records keyed %s on %s", key, events.DLQTopic(topic))

	// Seed 001: the history has the event a producer other than StreamOps
	// published, with what it caused.
	var ids []string
	for _, e := range s.events(url.Values{"aggregate_id": {string(key)}}) {
		ids = append(ids, string(e.EventType)+" "+e.EventID)
	}
	require.Len(t, ids, 3, "GET /api/events?aggregate_id=wf-test: %q", ids)
	assert.Equal(t, "workflow.created test-1", ids[0])
	assert.True(t, strings.HasPrefix(ids[1], "workflow.processing "), ids[1])
	assert.True(t, strings.HasPrefix(ids[2], "workflow.failed "), ids[2])
}
