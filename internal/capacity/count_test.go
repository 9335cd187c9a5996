package capacity_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/capacity"
	"github.com/streamops/streamops/internal/loadprobe"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/testenv"
)

// countWebhooks is how many Stripe deliveries the count sends: enough
// that a per-webhook mean is not one delivery's accident, few enough to
// run in seconds.
const countWebhooks = 5

// TestCountedConstantsAgreeWithAStack counts what Stripe
// invoice.finalized webhooks leave on the local stack and holds the
// committed constants file to it: the events, documents and records
// exactly, the bytes within 5 % (ids and timestamps vary in length a
// little). A change that stores or publishes more per webhook fails here
// until the constants (and so docs/capacity.md) say so.
func TestCountedConstantsAgreeWithAStack(t *testing.T) {
	c, err := capacity.LoadConstants("../../" + capacity.ConstantsPath)
	require.NoError(t, err)
	got := countStripeInvoices(t).Counted()
	n := 0
	c.Each(func(name string, k *capacity.Constant) {
		if !k.Counted() {
			return
		}
		n++
		v, ok := got[name]
		require.True(t, ok, "%s is a counted constant the count does not produce", name)
		if k.Unit == "bytes" || k.Unit == "bytes/record" {
			assert.InEpsilon(t, v, k.Value, 0.05, "%s: counted %.1f %s, the constants file says %g", name, v, k.Unit, k.Value)
			return
		}
		assert.Equal(t, v, k.Value, "%s: counted %g %s, the constants file says %g", name, v, k.Unit, k.Value)
	})
	assert.Equal(t, len(got), n, "every count has its constant")
}

// countStripeInvoices sends countWebhooks signed Stripe invoice.finalized
// deliveries, one after another, through the local stack as make run
// starts it (the workflow-processor behind its MSK stand-in), waits for
// their workflows to end, and counts what they left: the documents and
// their BSON bytes by collection and by event type, and the records and
// their bytes on every topic.
func countStripeInvoices(t *testing.T) capacity.Count {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := storetest.Configure(t, store.Config{})
	s, err := local.Start(ctx, local.Config{DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0", KafkaAddr: "127.0.0.1:0",
		MongoURI: db.URI, Database: db.Database, LogOutput: io.Discard, LogLevel: "warn",
		Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })

	kind, err := loadprobe.StripeInvoices(s.Providers(), s.WebhookSecret("stripe"))
	require.NoError(t, err)
	rep, err := (&loadprobe.Probe{BaseURL: s.URL(), Kinds: []loadprobe.Kind{kind}, Senders: 1}).Run(ctx, countWebhooks)
	require.NoError(t, err)
	require.Zero(t, rep.Errors(), "%s", rep)
	require.NoError(t, loadprobe.Settle(ctx, s.Store()))

	c := capacity.Count{Webhooks: countWebhooks, Documents: map[string]int{}, DocumentBytes: map[string]int{},
		Events: map[string]int{}, EventBytes: map[string]int{}, Records: map[string]int{}, RecordBytes: map[string]int{}}
	tmpl, err := loadprobe.Capture(ctx, s.Store(), countWebhooks)
	require.NoError(t, err)
	for coll, docs := range tmpl.Docs {
		for _, d := range docs {
			b, err := bson.Marshal(d)
			require.NoError(t, err)
			c.Documents[coll]++
			c.DocumentBytes[coll] += len(b)
			if coll == store.CollEvents {
				typ, _ := d.Map()["event_type"].(string)
				c.Events[typ]++
				c.EventBytes[typ] += len(b)
			}
		}
	}
	require.Equal(t, countWebhooks, c.Documents[store.CollWorkflows], "each delivery started its workflow")

	for _, r := range testenv.ReadAll(t, s.Brokers(), time.Minute, events.TopicWorkflows, events.TopicTasks, events.TopicOperations) {
		c.Records[r.Topic]++
		c.RecordBytes[r.Topic] += len(r.Key) + len(r.Value)
	}
	return c
}
