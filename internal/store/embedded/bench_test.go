package embedded

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
)

// storeFileName is the data file store.Open keeps under Config.DataDir,
// and the local stack's snapshot.
const storeFileName = "streamops.lungo"

// benchEvents are n workflow.created events with a 1 KiB input each, about
// what a routed webhook stores.
func benchEvents(n int) []events.Envelope {
	input := strings.Repeat("x", 1000)
	out := make([]events.Envelope, n)
	for i := range out {
		id := "wf-" + uuid.NewString()
		payload, _ := json.Marshal(map[string]any{"workflowId": id, "name": "bench", "steps": []string{"validate"},
			"priority": "low", "createdAt": events.Now().String(), "input": map[string]string{"blob": input}})
		out[i] = events.Envelope{EventType: events.WorkflowCreated, EventID: "evt-" + uuid.NewString(),
			Timestamp: events.Now(), SchemaVersion: events.SchemaVersion, Payload: payload,
			Metadata: &events.Metadata{Source: "api-gateway"}}
	}
	return out
}

// BenchmarkEmbeddedStoreWrite measures one commit (storing one event) on
// the embedded engine once it holds 1,000 or 10,000 events: in memory;
// persisted by lungo's file store, which rewrites the whole file in every
// commit; by JournalFileStore (the local stack's default), which appends
// each commit's change to a journal and fsyncs it (journal-B/op says how
// much it appended); and by BackgroundFileStore, which writes the newest
// commit every DefaultFlushInterval (file-writes/op says how many commits
// shared a write) and so acknowledges commits that are not on disk.
func BenchmarkEmbeddedStoreWrite(b *testing.B) {
	for _, backing := range []string{"memory", "file", "journal", "background"} {
		for _, held := range []int{1_000, 10_000} {
			b.Run(fmt.Sprintf("%s/%d", backing, held), func(b *testing.B) {
				ctx := context.Background()
				cfg := store.Config{}
				var bg *BackgroundFileStore
				var j *JournalFileStore
				switch backing {
				case "file":
					cfg.DataDir = b.TempDir()
				case "journal":
					cfg.DataDir = b.TempDir()
					var err error
					j, err = NewJournalFileStore(filepath.Join(cfg.DataDir, storeFileName), 0o600, 0)
					require.NoError(b, err)
					defer j.Close()
					cfg.Backing = j
				case "background":
					cfg.DataDir = b.TempDir()
					var err error
					bg, err = NewBackgroundFileStore(filepath.Join(cfg.DataDir, storeFileName), 0o600, DefaultFlushInterval)
					require.NoError(b, err)
					defer bg.Close()
					cfg.Backing = bg
				}
				s, err := store.Open(ctx, cfg)
				require.NoError(b, err)
				defer s.Close(ctx)
				pre := benchEvents(held)
				for i := 0; i < held; i += 1000 {
					_, err := s.InsertEvents(ctx, pre[i:min(i+1000, held)])
					require.NoError(b, err)
				}
				var writes, appended int64
				if bg != nil {
					require.NoError(b, bg.Flush())
					writes = bg.Writes()
				}
				if j != nil {
					appended = j.JournalBytes()
				}
				n := 0
				for b.Loop() { // the preload above runs once, not per ramp-up round
					_, err := s.InsertEvents(ctx, benchEvents(1))
					require.NoError(b, err)
					n++
				}
				if bg != nil {
					b.ReportMetric(float64(bg.Writes()-writes)/float64(n), "file-writes/op")
				}
				if j != nil {
					b.ReportMetric(float64(j.JournalBytes()-appended)/float64(n), "journal-B/op")
				}
				if cfg.DataDir != "" {
					if fi, err := os.Stat(filepath.Join(cfg.DataDir, storeFileName)); err == nil {
						b.ReportMetric(float64(fi.Size())/(1<<20), "MiB-file")
					}
				}
			})
		}
	}
}
