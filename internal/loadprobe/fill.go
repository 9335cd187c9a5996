package loadprobe

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// Template is what some real webhooks left in a store: every document
// of every collection they touched, as stored. Fill copies it.
type Template struct {
	// Webhooks is how many deliveries left the documents.
	Webhooks int
	// Docs are the documents by collection.
	Docs map[string][]bson.D
}

// Capture reads a template from s, which holds what webhooks deliveries
// (and nothing else) left: call it on a fresh store after Settle.
func Capture(ctx context.Context, s *store.Store, webhooks int) (Template, error) {
	counts, err := s.DocumentCounts(ctx)
	if err != nil {
		return Template{}, err
	}
	t := Template{Webhooks: webhooks, Docs: map[string][]bson.D{}}
	for _, coll := range slices.Sorted(maps.Keys(counts)) {
		if counts[coll] == 0 {
			continue
		}
		docs, err := s.Documents(ctx, coll)
		if err != nil {
			return Template{}, err
		}
		t.Docs[coll] = docs
	}
	if len(t.Docs[store.CollEvents]) == 0 {
		return Template{}, errors.New("loadprobe: the template holds no events")
	}
	return t, nil
}

// PerWebhook is how many documents one webhook left in each collection.
func (t Template) PerWebhook() map[string]float64 {
	out := map[string]float64{}
	for coll, docs := range t.Docs {
		out[coll] = float64(len(docs)) / float64(max(t.Webhooks, 1))
	}
	return out
}

// Settle waits until the work the deliveries started has ended: every
// workflow final, no outbox entry pending or in flight, and the number
// of documents in every collection unchanged between two looks a
// second apart. It gives up when ctx ends.
func Settle(ctx context.Context, s *store.Store) error {
	var last map[string]int64
	for {
		counts, err := s.DocumentCounts(ctx)
		if err != nil {
			return err
		}
		busy, err := unfinished(ctx, s)
		if err != nil {
			return err
		}
		if !busy && maps.Equal(counts, last) {
			return nil
		}
		last = counts
		select {
		case <-ctx.Done():
			return fmt.Errorf("loadprobe: the deliveries' work did not settle: %w", ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

// unfinished reports whether a workflow is not final or an outbox entry
// waits to be delivered.
func unfinished(ctx context.Context, s *store.Store) (bool, error) {
	wfs, err := s.CountBy(ctx, store.CollWorkflows, "status", "", time.Time{})
	if err != nil {
		return false, err
	}
	for st, n := range wfs {
		if n > 0 && !status.WorkflowIsFinal(st) {
			return true, nil
		}
	}
	out, err := s.CountBy(ctx, store.CollOutbox, "status", "", time.Time{})
	if err != nil {
		return false, err
	}
	return out[status.OutboxPending]+out[status.OutboxProcessing] > 0, nil
}

// FillReport is what Fill did.
type FillReport struct {
	// Copies is how many times the template was stored.
	Copies int
	// Documents is how many documents that inserted, by collection.
	Documents map[string]int
	// Elapsed is how long it took.
	Elapsed time.Duration
}

// Spacing is how far apart in time Fill puts the template's copies,
// older the later the copy: the growth rate, 20 webhooks a
// second.
const Spacing = 50 * time.Millisecond

// fillWrite is about how many documents one bulk insert of Fill stores.
const fillWrite = 2000

// Fill stores copies of t in s until it holds at least events events.
// Each copy gets fresh ids and is dated Spacing before the one before
// it, so the store looks like one that took those webhooks over time
// rather than one instant's. It writes with unordered bulk inserts,
// through the store, on either engine.
//
// A copy's ids are the template's with every UUID and every run of 16
// or more lowercase hex digits (trace and span ids, the samples'
// provider ids) replaced, consistently across the copy's documents. A
// document whose _id has neither (a partner's breaker state) is state,
// not traffic, and is not copied.
func Fill(ctx context.Context, s *store.Store, t Template, events int) (FillReport, error) {
	start := time.Now()
	counts, err := s.DocumentCounts(ctx)
	if err != nil {
		return FillReport{}, err
	}
	perCopy := len(t.Docs[store.CollEvents])
	if perCopy == 0 {
		return FillReport{}, errors.New("loadprobe: the template holds no events")
	}
	total := 0
	for _, docs := range t.Docs {
		total += len(docs)
	}
	copies := max(0, (events-int(counts[store.CollEvents])+perCopy-1)/perCopy)
	perWrite := max(1, fillWrite/total)
	rep := FillReport{Copies: copies, Documents: map[string]int{}}
	for done := 0; done < copies; done += perWrite {
		batch := map[string][]bson.D{}
		for c := done; c < min(copies, done+perWrite); c++ {
			r := renamer{ids: map[string]string{}, shift: -time.Duration(c+1) * Spacing}
			for coll, docs := range t.Docs {
				for _, d := range docs {
					if !idPattern.MatchString(stringID(d)) {
						continue
					}
					batch[coll] = append(batch[coll], r.doc(d))
				}
			}
		}
		for _, coll := range slices.Sorted(maps.Keys(batch)) {
			if err := s.InsertDocuments(ctx, coll, batch[coll]); err != nil {
				return rep, err
			}
			rep.Documents[coll] += len(batch[coll])
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// stringID is d's _id when it is a string.
func stringID(d bson.D) string {
	for _, e := range d {
		if e.Key == "_id" {
			id, _ := e.Value.(string)
			return id
		}
	}
	return ""
}

// idPattern is what a copy renames: a UUID or a long lowercase hex run.
var idPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}`)

// renamer makes one copy of a template: fresh ids, times moved by shift.
type renamer struct {
	ids   map[string]string // template id → the copy's
	shift time.Duration
}

func (r renamer) doc(d bson.D) bson.D {
	out := make(bson.D, len(d))
	for i, e := range d {
		out[i] = bson.E{Key: e.Key, Value: r.value(e.Key, e.Value)}
	}
	return out
}

func (r renamer) value(key string, v any) any {
	switch v := v.(type) {
	case bson.D:
		return r.doc(v)
	case bson.A:
		out := make(bson.A, len(v))
		for i, x := range v {
			out[i] = r.value("", x)
		}
		return out
	case string:
		return idPattern.ReplaceAllStringFunc(v, r.id)
	case primitive.DateTime:
		return primitive.NewDateTimeFromTime(v.Time().Add(r.shift))
	case int64:
		if key == "seq" { // the events' clock-based order (store.EventDocument.Seq)
			return v + int64(r.shift)
		}
	}
	return v
}

// id is the copy's id for the template's old: fresh, of the same shape
// (every hex digit replaced by a random one), the same for every
// occurrence within the copy.
func (r renamer) id(old string) string {
	if n, ok := r.ids[old]; ok {
		return n
	}
	b := []byte(old)
	rnd := make([]byte, len(b))
	_, _ = rand.Read(rnd)
	for i, c := range b {
		if c != '-' {
			b[i] = "0123456789abcdef"[rnd[i]&15]
		}
	}
	r.ids[old] = string(b)
	return r.ids[old]
}
