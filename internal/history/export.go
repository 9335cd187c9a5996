package history

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/streamops/streamops/internal/objects"
	"github.com/streamops/streamops/internal/store"
)

// Formats an export can be written in.
const (
	NDJSON = "ndjson"
	CSV    = "csv"
)

// EventFinder pages through stored events; *store.Store implements it.
type EventFinder interface {
	FindEvents(ctx context.Context, f store.ReplayFilter, after *store.Cursor, limit int) ([]store.EventDocument, string, error)
}

// Exporter streams events matching a filter.
type Exporter struct {
	Store EventFinder
	// Objects keeps an export too large to answer inline and returns a
	// link to it (S3 with a presigned URL on AWS, a file locally).
	Objects objects.Store
	// InlineLimit is the largest export answered in the response itself;
	// beyond it the export goes to Objects. Default 5 MiB, under Lambda's
	// 6 MB response limit.
	InlineLimit int
	// PageSize is how many events one read fetches. Default 1,000.
	PageSize int
	// SpillDir holds the temporary file of an export that outgrew
	// InlineLimit. Default os.TempDir().
	SpillDir string
	Logger   *slog.Logger
}

// Export is the result: the bytes themselves, or a link when too large.
type Export struct {
	Format string
	Events int
	Bytes  int64
	Inline []byte
	URL    string
}

// Export writes every event matching f in format, page by page: memory
// holds at most InlineLimit bytes and one page of events.
func (x *Exporter) Export(ctx context.Context, f store.ReplayFilter, format string) (Export, error) {
	if format != NDJSON && format != CSV {
		return Export{}, fmt.Errorf("history: unknown export format %q (ndjson or csv)", format)
	}
	limit, page := x.InlineLimit, x.PageSize
	if limit <= 0 {
		limit = 5 << 20
	}
	if page <= 0 {
		page = 1000
	}
	log := x.Logger
	if log == nil {
		log = slog.Default()
	}
	sink := &spill{limit: limit, dir: x.SpillDir}
	defer sink.close()
	w := newEncoder(format, sink)
	res := Export{Format: format}
	var after *store.Cursor
	start := time.Now()
	for {
		docs, next, err := x.Store.FindEvents(ctx, f, after, page)
		if err != nil {
			return res, err
		}
		for _, d := range docs {
			if err := w.write(d); err != nil {
				return res, err
			}
		}
		res.Events += len(docs)
		if err := w.flush(); err != nil {
			return res, err
		}
		if next == "" {
			break
		}
		c, _ := store.DecodeCursor(next)
		after = &c
		log.InfoContext(ctx, "export progress", "events", res.Events, "bytes", sink.n, "spilled", sink.file != nil)
	}
	res.Bytes = sink.n
	if sink.file == nil {
		res.Inline = sink.buf.Bytes()
		return res, nil
	}
	if x.Objects == nil {
		return res, errors.New("history: export exceeds the inline limit and no object store is configured")
	}
	if _, err := sink.file.Seek(0, io.SeekStart); err != nil {
		return res, err
	}
	key := fmt.Sprintf("exports/%s/%s.%s", time.Now().UTC().Format("2006-01-02"), uuid.NewString(), format)
	url, err := x.Objects.Put(ctx, objects.Object{Key: key, Body: sink.file})
	if err != nil {
		return res, fmt.Errorf("history: store export: %w", err)
	}
	res.URL = url
	log.InfoContext(ctx, "export stored", "events", res.Events, "bytes", res.Bytes, "url", url, "took", time.Since(start))
	return res, nil
}

// spill buffers in memory up to limit, then moves to a temporary file.
type spill struct {
	limit int
	dir   string
	buf   bytes.Buffer
	file  *os.File
	n     int64
}

func (s *spill) Write(p []byte) (int, error) {
	s.n += int64(len(p))
	if s.file == nil && s.buf.Len()+len(p) <= s.limit {
		return s.buf.Write(p)
	}
	if s.file == nil {
		f, err := os.CreateTemp(s.dir, "streamops-export-*")
		if err != nil {
			return 0, err
		}
		s.file = f
		if _, err := s.buf.WriteTo(f); err != nil {
			return 0, err
		}
		s.buf = bytes.Buffer{}
	}
	return s.file.Write(p)
}

func (s *spill) close() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
	}
}

// encoder writes events in one format.
type encoder struct {
	format string
	w      io.Writer
	csv    *csv.Writer
	header bool
}

func newEncoder(format string, w io.Writer) *encoder {
	e := &encoder{format: format, w: w}
	if format == CSV {
		e.csv = csv.NewWriter(w)
	}
	return e
}

// csvColumns are the CSV export's columns: the indexed fields, then the
// whole payload as JSON.
var csvColumns = []string{"event_id", "event_type", "timestamp", "aggregate_id", "execution_id", "service_name", "user_id", "payload"}

func (e *encoder) write(d store.EventDocument) error {
	env, err := d.Envelope()
	if err != nil {
		return err
	}
	if e.format == NDJSON {
		b, err := json.Marshal(env)
		if err != nil {
			return err
		}
		_, err = e.w.Write(append(b, '\n'))
		return err
	}
	if !e.header {
		e.header = true
		if err := e.csv.Write(csvColumns); err != nil {
			return err
		}
	}
	return e.csv.Write([]string{d.EventID, d.EventType, env.Timestamp.String(), d.AggregateID, d.ExecutionID,
		d.Metadata.ServiceName, d.Metadata.UserID.Value, string(env.Payload)})
}

func (e *encoder) flush() error {
	if e.csv != nil {
		e.csv.Flush()
		return e.csv.Error()
	}
	return nil
}
