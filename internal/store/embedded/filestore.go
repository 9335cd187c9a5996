package embedded

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/256dpi/lungo"
)

// DefaultFlushInterval is a typical BackgroundFileStore interval (what the
// local stack's default was before JournalFileStore): a quarter of a
// second bounds what a crash can lose to about that, while a burst of
// commits costs one file write instead of one each.
const DefaultFlushInterval = 250 * time.Millisecond

// BackgroundFileStore is the embedded engine's opt-in fast persistence for
// the local stack (STREAMOPS_STORE_FLUSH_INTERVAL > 0; the default is
// JournalFileStore): lungo's own file format (read by a lungo.FileStore and
// written by writeSnapshot, as the journal's snapshot is, so the data file
// is the same either way), but the file is written in the background
// rather than inside every commit.
//
// lungo's FileStore used inside every commit encodes and atomically
// rewrites the whole data file, so a commit's cost grows with the data: at 10,000
// stored events (15 MiB) one commit takes 90–140 ms instead of about 1 ms
// in memory (BenchmarkEmbeddedStoreWrite), and a webhook makes several
// (650 ms to its 202, against 30 ms with this store).
// Here Store only hands over the committed catalog (lungo's catalogs are
// copy-on-write, so a committed one never changes) and a goroutine writes
// the newest one at most every interval; commits in between are coalesced.
//
// Durability differs from MongoDB's: a commit returns before its data is
// on disk, so a crash (kill -9, power loss) loses the commits of the last
// interval or so. Close writes the newest catalog before it returns, so a
// clean stop (Ctrl-C) loses nothing. If a background write fails, commits
// fall back to writing synchronously (and fail with the error) until a
// write succeeds again.
type BackgroundFileStore struct {
	file     *lungo.FileStore // reads the file; writeSnapshot writes it
	path     string
	mode     os.FileMode
	interval time.Duration

	mu      sync.Mutex
	seq     uint64         // commits handed over so far
	pending *lungo.Catalog // the newest commit not yet written…
	pendSeq uint64         // …and its number
	written uint64         // the number of the newest commit on disk
	failed  error          // the last write's error, until one succeeds
	closed  bool

	writeMu sync.Mutex // one file write at a time
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	writes  atomic.Int64
}

// NewBackgroundFileStore persists to the file at path (created with mode)
// at most every interval; interval must be positive.
func NewBackgroundFileStore(path string, mode os.FileMode, interval time.Duration) (*BackgroundFileStore, error) {
	if interval <= 0 {
		return nil, errors.New("local: the background store's interval must be positive")
	}
	s := &BackgroundFileStore{
		file: lungo.NewFileStore(path, mode), path: path, mode: mode, interval: interval,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go s.run()
	return s, nil
}

// Load implements lungo.Store: it reads the data file (empty when none).
func (s *BackgroundFileStore) Load() (*lungo.Catalog, error) { return s.file.Load() }

// Store implements lungo.Store: it takes a committed catalog to write in
// the background. After a failed write, or once closed, it writes
// synchronously and reports the error, so a commit is never acknowledged
// on a store known to be failing.
func (s *BackgroundFileStore) Store(c *lungo.Catalog) error {
	s.mu.Lock()
	s.seq++
	seq := s.seq
	if s.failed != nil || s.closed {
		s.mu.Unlock()
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
		return s.write(c, seq)
	}
	s.pending, s.pendSeq = c, seq
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default: // a write is already due; it takes the newest catalog
	}
	return nil
}

// Flush writes the newest committed catalog now, if it is not written yet.
func (s *BackgroundFileStore) Flush() error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	c, seq := s.pending, s.pendSeq
	s.pending = nil
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	return s.write(c, seq)
}

// write writes c, commit number seq, unless a newer commit is already on
// disk, and records the outcome; writeMu is held, so writes never overlap
// and an older catalog never replaces a newer one.
func (s *BackgroundFileStore) write(c *lungo.Catalog, seq uint64) error {
	s.mu.Lock()
	stale := seq <= s.written
	s.mu.Unlock()
	if stale {
		return nil
	}
	err := writeSnapshot(s.path, s.mode, c, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failed = err
		if s.pending == nil || s.pendSeq < seq {
			s.pending, s.pendSeq = c, seq // keep it for the next attempt
		}
		return err
	}
	s.failed, s.written = nil, seq
	if s.pending != nil && s.pendSeq <= seq {
		s.pending = nil
	}
	s.writes.Add(1)
	return nil
}

// Writes is how many times the data file was written.
func (s *BackgroundFileStore) Writes() int64 { return s.writes.Load() }

// Close stops the background writer and writes what is pending. Call it
// after the engine closed; commits after Close are written synchronously.
func (s *BackgroundFileStore) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.Flush()
	}
	s.closed = true
	s.mu.Unlock()
	close(s.stop)
	<-s.done
	return s.Flush()
}

// run writes the newest catalog after each commit, at most every interval.
func (s *BackgroundFileStore) run() {
	defer close(s.done)
	var last time.Time
	for {
		select {
		case <-s.kick:
		case <-s.stop:
			return
		}
		if wait := time.Until(last.Add(s.interval)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-s.stop:
				t.Stop()
				return // Close flushes
			}
		}
		_ = s.Flush() // a failure switches Store to synchronous writes
		last = time.Now()
	}
}
