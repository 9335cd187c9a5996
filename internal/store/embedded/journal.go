package embedded

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
)

// maxKeptFrame is the largest record buffer a journal keeps for the next
// commit; a larger one (a bulk of big documents) is left to the collector.
const maxKeptFrame = 1 << 20

// DefaultJournalCompactBytes is how large the journal may grow before
// JournalFileStore folds it into the snapshot: 8 MiB, or the snapshot's own
// size when that is larger, so replaying the journal at start-up never
// costs much more than loading the snapshot does.
const DefaultJournalCompactBytes = 8 << 20

// JournalFileStore is the embedded engine's durable persistence for the
// local stack: every commit appends what it changed to an append-only
// journal and fsyncs it before the commit returns, so an acknowledged
// write survives kill -9 and power loss, as MongoDB's journal makes it
// survive there. The snapshot is lungo's own file format (the file
// lungo.FileStore reads, written a document at a time: writeSnapshot); the journal beside it
// (<snapshot>.journal.<generation>) holds the commits made since.
//
// A commit's cost is the size of its change, not of the data: lungo's
// catalogs are copy-on-write, so the collections and documents a commit did
// not touch are the very same pointers as in the previous commit, and the
// difference is found by comparing pointers (BenchmarkEmbeddedStoreWrite).
// lungo's engine runs one commit at a time and calls Store inside it, so
// there are no concurrent commits to group under one fsync.
//
// Load reads the snapshot and replays the journal over it (a record torn by
// a crash at the journal's tail was never acknowledged and is dropped),
// then folds both into a fresh snapshot. While running, once the journal
// outgrows CompactBytes or the snapshot, a background goroutine writes the
// newest catalog as the snapshot and removes the journal generations it
// covers; while commits come beside it, it works a quarter of the time
// (pacer), so that on a large store it does not take a core from the
// requests. Close hurries a compaction under way and then does the same,
// so a clean stop leaves the snapshot alone.
// Replaying a journal over a snapshot that already contains it is harmless
// (every record sets whole documents or index sets, or deletes), so a crash
// between writing the snapshot and removing the journal loses nothing.
type JournalFileStore struct {
	path         string
	mode         os.FileMode
	compactBytes int64

	mu       sync.Mutex
	prev     *lungo.Catalog // the newest catalog in the journal
	file     *os.File       // the journal generation being appended to
	gen      int
	size     int64 // bytes of the current generation known to be good
	base     int64 // the snapshot's size, for the compaction threshold
	broken   error // a write that could not be rolled back
	closed   bool
	compacts sync.WaitGroup
	running  bool // a compaction is under way

	// frame is the last record's encoding, whose space the next one
	// reuses: every commit encodes under the engine's lock, where each
	// allocation can make it help the garbage collector while every other
	// write waits.
	frame []byte

	// lastCommit (Unix nanoseconds) and hurry pace a compaction: it
	// yields to commits, and runs flat out once Close waits for it.
	lastCommit atomic.Int64
	hurry      atomic.Bool
	// slice and sleep, when set, replace the pacer's (a test's hooks).
	slice time.Duration
	sleep func(time.Duration)

	commits atomic.Int64
	bytes   atomic.Int64
	snaps   atomic.Int64
	// compacting is the time compactions took, in all, and paused the
	// part of it they yielded to commits (nanoseconds).
	compacting atomic.Int64
	paused     atomic.Int64
}

// NewJournalFileStore persists to the snapshot at path and its journal
// beside it (created with mode). compactBytes is the journal size that
// triggers a compaction; zero means DefaultJournalCompactBytes.
func NewJournalFileStore(path string, mode os.FileMode, compactBytes int64) (*JournalFileStore, error) {
	if compactBytes < 0 {
		return nil, errors.New("local: the journal's compaction size must not be negative")
	}
	if compactBytes == 0 {
		compactBytes = DefaultJournalCompactBytes
	}
	return &JournalFileStore{path: path, mode: mode, compactBytes: compactBytes}, nil
}

// Load implements lungo.Store: the snapshot with the journal replayed over
// it, written back as one snapshot so the journal starts empty.
func (s *JournalFileStore) Load() (*lungo.Catalog, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	file := &lungo.File{Namespaces: map[string]lungo.FileNamespace{}}
	buf, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("local: read the store snapshot: %w", err)
	default:
		if err := bson.Unmarshal(buf, file); err != nil {
			return nil, fmt.Errorf("local: decode the store snapshot %s: %w", s.path, err)
		}
	}
	gens, err := s.generations()
	if err != nil {
		return nil, err
	}
	state := newReplayState(file)
	for _, g := range gens {
		if err := state.replay(s.journalPath(g)); err != nil {
			return nil, err
		}
	}
	catalog, err := state.file().BuildCatalog()
	if err != nil {
		return nil, fmt.Errorf("local: rebuild the store from its snapshot and journal: %w", err)
	}
	next := 1
	if len(gens) > 0 {
		next = gens[len(gens)-1] + 1
	}
	if len(gens) > 0 {
		if s.base, err = s.snapshot(catalog, gens, nil); err != nil {
			return nil, err
		}
	} else {
		s.base = int64(len(buf))
	}
	if err := s.openGeneration(next); err != nil {
		return nil, err
	}
	s.prev = catalog
	return catalog, nil
}

// Store implements lungo.Store: it appends what c changed since the last
// commit to the journal and fsyncs it. An error fails the commit; the
// journal is rolled back to its last good record first, and while that is
// impossible every commit fails.
func (s *JournalFileStore) Store(c *lungo.Catalog) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return errors.New("local: the journal store is not loaded or already closed")
	}
	if s.broken != nil {
		if err := s.file.Truncate(s.size); err != nil {
			return fmt.Errorf("local: the store journal is unwritable: %w", errors.Join(s.broken, err))
		}
		s.broken = nil
	}
	rec, err := diffCatalogs(s.prev, c)
	if err != nil {
		return err
	}
	if len(rec.Ops) > 0 {
		frame, err := appendRecord(s.frame[:0], rec)
		if err != nil {
			return err
		}
		if cap(frame) <= maxKeptFrame {
			s.frame = frame
		}
		if _, err := s.file.WriteAt(frame, s.size); err != nil {
			return s.rollback(err)
		}
		if err := s.file.Sync(); err != nil {
			return s.rollback(err)
		}
		s.size += int64(len(frame))
		s.bytes.Add(int64(len(frame)))
	}
	s.prev = c
	c.TakeChanges()
	s.commits.Add(1)
	s.lastCommit.Store(time.Now().UnixNano())
	if !s.running && !s.closed && s.size > max(s.compactBytes, s.base) {
		s.startCompaction(c)
	}
	return nil
}

// rollback cuts the journal back to its last good record after a failed
// append, so a later record never follows a torn one.
func (s *JournalFileStore) rollback(cause error) error {
	if err := s.file.Truncate(s.size); err != nil {
		s.broken = cause
	}
	return fmt.Errorf("local: append to the store journal: %w", cause)
}

// startCompaction moves on to a new journal generation and writes c, the
// newest catalog, as the snapshot in the background; s.mu is held.
func (s *JournalFileStore) startCompaction(c *lungo.Catalog) {
	covered := s.gen
	if err := s.openGeneration(s.gen + 1); err != nil {
		return // the current generation goes on; the next commit tries again
	}
	s.running = true
	s.compacts.Go(func() {
		gens, err := s.generations()
		var upto []int
		for _, g := range gens {
			if g <= covered {
				upto = append(upto, g)
			}
		}
		var size int64
		if err == nil {
			// A failure leaves the journal, which still holds everything.
			start := time.Now()
			p := newPacer(&s.lastCommit, &s.hurry, &s.paused)
			if s.slice > 0 {
				p.slice = s.slice
			}
			if s.sleep != nil {
				p.sleep = s.sleep
			}
			size, _ = s.snapshot(c, upto, p.step)
			s.compacting.Add(int64(time.Since(start)))
		}
		s.mu.Lock()
		s.running = false
		if size > 0 {
			s.base = size
		}
		s.mu.Unlock()
	})
}

// snapshot writes c as the snapshot (atomically, fsynced) and then removes
// the journal generations gens, which c contains. It returns the
// snapshot's size. step paces it (writeSnapshot).
func (s *JournalFileStore) snapshot(c *lungo.Catalog, gens []int, step func()) (int64, error) {
	if err := writeSnapshot(s.path, s.mode, c, step); err != nil {
		return 0, err
	}
	var size int64
	if fi, err := os.Stat(s.path); err == nil {
		size = fi.Size()
	}
	for _, g := range gens {
		if err := os.Remove(s.journalPath(g)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return size, fmt.Errorf("local: remove a compacted journal: %w", err)
		}
	}
	s.snaps.Add(1)
	return size, nil
}

// openGeneration closes the current journal file and starts generation g.
func (s *JournalFileStore) openGeneration(g int) error {
	f, err := os.OpenFile(s.journalPath(g), os.O_RDWR|os.O_CREATE|os.O_TRUNC, s.mode)
	if err != nil {
		return fmt.Errorf("local: create the store journal: %w", err)
	}
	if err := syncDir(filepath.Dir(s.path)); err != nil {
		_ = f.Close()
		return err
	}
	if s.file != nil {
		_ = s.file.Close()
	}
	s.file, s.gen, s.size = f, g, 0
	return nil
}

// Compacting reports whether a compaction is under way, so that a
// measurement can start on a store at rest.
func (s *JournalFileStore) Compacting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// Close waits for a compaction under way, folds the journal into the
// snapshot and closes the journal. Call it after the engine closed.
func (s *JournalFileStore) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.hurry.Store(true)
	s.compacts.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return nil
	}
	var err error
	if s.prev != nil && s.broken == nil {
		gens, gerr := s.generations()
		if err = gerr; err == nil {
			_, err = s.snapshot(s.prev, gens, nil)
		}
	}
	_ = s.file.Close()
	s.file = nil
	if err == nil {
		_ = os.Remove(s.journalPath(s.gen)) // empty once the snapshot holds it
	}
	return err
}

// FoldJournal replays a journal a crash left beside the snapshot at path
// into the snapshot, so a store that reads only the snapshot (lungo's
// FileStore, BackgroundFileStore) sees every commit the journal
// acknowledged. Without a journal it does nothing.
func FoldJournal(path string, mode os.FileMode) error {
	j, err := NewJournalFileStore(path, mode, 0)
	if err != nil {
		return err
	}
	if gens, err := j.generations(); err != nil || len(gens) == 0 {
		return err
	}
	if _, err := j.Load(); err != nil {
		return err
	}
	return j.Close()
}

// Commits is how many commits were journaled.
func (s *JournalFileStore) Commits() int64 { return s.commits.Load() }

// JournalBytes is how many bytes the commits appended to the journal.
func (s *JournalFileStore) JournalBytes() int64 { return s.bytes.Load() }

// Snapshots is how many times the snapshot was written.
func (s *JournalFileStore) Snapshots() int64 { return s.snaps.Load() }

// CompactionTime is how long the compactions run while the store was open
// took, together.
func (s *JournalFileStore) CompactionTime() time.Duration {
	return time.Duration(s.compacting.Load())
}

// CompactionPauses is how long those compactions paused to leave the
// cores to commits, together.
func (s *JournalFileStore) CompactionPauses() time.Duration { return time.Duration(s.paused.Load()) }

func (s *JournalFileStore) journalPath(g int) string {
	return s.path + ".journal." + strconv.Itoa(g)
}

// generations lists the journal generations on disk, oldest first.
func (s *JournalFileStore) generations() ([]int, error) {
	matches, err := filepath.Glob(s.path + ".journal.*")
	if err != nil {
		return nil, err
	}
	var gens []int
	for _, m := range matches {
		g, err := strconv.Atoi(strings.TrimPrefix(m, s.path+".journal."))
		if err == nil && g > 0 {
			gens = append(gens, g)
		}
	}
	sort.Ints(gens)
	return gens, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("local: open the store directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("local: sync the store directory: %w", err)
	}
	return nil
}

// journalRecord is one commit: the changes to apply, in order.
type journalRecord struct {
	Ops []journalOp `bson:"ops"`
}

// journalOp changes one namespace ("db.collection"): it puts a whole
// document (inserted or replacing the one with its _id), deletes the
// document with Delete's _id, creates the namespace or sets its indexes
// (Create), or drops the namespace.
type journalOp struct {
	NS      string                     `bson:"ns"`
	Put     bsonkit.Doc                `bson:"put,omitempty"`
	Delete  bsonkit.Doc                `bson:"del,omitempty"`
	Create  bool                       `bson:"create,omitempty"`
	Indexes map[string]lungo.FileIndex `bson:"idx,omitempty"`
	Drop    bool                       `bson:"drop,omitempty"`
}

// A record on disk is its length and CRC-32C (little endian, 4 bytes each)
// and then its BSON.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendRecord appends rec as a record (its length, CRC and BSON) to dst.
func appendRecord(dst []byte, rec journalRecord) ([]byte, error) {
	start := len(dst)
	dst, err := bson.MarshalAppend(append(dst, make([]byte, 8)...), rec)
	if err != nil {
		return nil, fmt.Errorf("local: encode a store journal record: %w", err)
	}
	body := dst[start+8:]
	binary.LittleEndian.PutUint32(dst[start:start+4], uint32(len(body)))
	binary.LittleEndian.PutUint32(dst[start+4:start+8], crc32.Checksum(body, castagnoli))
	return dst, nil
}

// diffCatalogs lists what turned prev into next. Unchanged namespaces are
// the same pointers in both (lungo copies on write), and a changed one's
// document set records its own mutations since the last commit (the
// patched lungo under third_party/lungo), so the cost is the change's, not
// the collection's.
func diffCatalogs(prev, next *lungo.Catalog) (journalRecord, error) {
	var rec journalRecord
	for h, ns := range next.Namespaces {
		if h == lungo.Oplog {
			continue
		}
		old := prev.Namespaces[h]
		if old == ns {
			continue
		}
		name := h.String()
		var changes []bsonkit.Change
		if old != nil && old.Documents.Lineage() != ns.Documents.Lineage() {
			// Dropped and made again within one commit: start it afresh.
			rec.Ops = append(rec.Ops, journalOp{NS: name, Drop: true})
			old = nil
			ns.Documents.Each(func(d bsonkit.Doc) bool {
				changes = append(changes, bsonkit.Change{Op: bsonkit.ChangeAdd, New: d})
				return true
			})
		} else {
			changes = ns.Documents.Changes()
		}
		if old == nil || !sameIndexes(old, ns) {
			rec.Ops = append(rec.Ops, journalOp{NS: name, Create: true, Indexes: fileIndexes(ns)})
		}
		ops, err := documentOps(name, changes)
		if err != nil {
			return rec, err
		}
		rec.Ops = append(rec.Ops, ops...)
	}
	for h := range prev.Namespaces {
		if _, ok := next.Namespaces[h]; !ok && h != lungo.Oplog {
			rec.Ops = append(rec.Ops, journalOp{NS: h.String(), Drop: true})
		}
	}
	return rec, nil
}

// documentOps folds a namespace's changes into one put or delete per _id,
// the last one made: replaying whole documents by _id needs no more.
func documentOps(ns string, changes []bsonkit.Change) ([]journalOp, error) {
	ops := make([]journalOp, 0, len(changes))
	at := make(map[string]int, len(changes))
	for _, c := range changes {
		doc, op := c.New, journalOp{NS: ns, Put: c.New}
		if c.Op == bsonkit.ChangeRemove {
			doc, op = c.Old, journalOp{NS: ns, Delete: idDoc(c.Old)}
		}
		key, err := idKey(doc)
		if err != nil {
			return nil, err
		}
		if i, ok := at[key]; ok {
			ops[i] = op
			continue
		}
		at[key] = len(ops)
		ops = append(ops, op)
	}
	return ops, nil
}

func idDoc(d bsonkit.Doc) bsonkit.Doc {
	return &bson.D{{Key: "_id", Value: bsonkit.Get(d, "_id")}}
}

// idKey is the BSON encoding of a document's _id: a map key for any type.
func idKey(d bsonkit.Doc) (string, error) {
	b, err := bson.Marshal(idDoc(d))
	if err != nil {
		return "", fmt.Errorf("local: encode a document id: %w", err)
	}
	return string(b), nil
}

func fileIndexes(c *mongokit.Collection) map[string]lungo.FileIndex {
	out := make(map[string]lungo.FileIndex, len(c.Indexes))
	for name, idx := range c.Indexes {
		cfg := idx.Config()
		out[name] = lungo.FileIndex{Key: cfg.Key, Unique: cfg.Unique, Partial: cfg.Partial, Expiry: cfg.Expiry}
	}
	return out
}

// sameIndexes reports whether two versions of a namespace have the same
// index definitions (lungo clones the index objects on every write).
func sameIndexes(a, b *mongokit.Collection) bool {
	if len(a.Indexes) != len(b.Indexes) {
		return false
	}
	for name, ia := range a.Indexes {
		ib, ok := b.Indexes[name]
		if !ok || !ia.SameConfig(ib) {
			return false
		}
	}
	return true
}

// replayState is a snapshot being brought up to date by journal records:
// per namespace its documents in order (nil where deleted) and by _id.
type replayState struct {
	order []string
	ns    map[string]*replayNamespace
}

type replayNamespace struct {
	docs    []bsonkit.Doc
	byID    map[string]int
	indexes map[string]lungo.FileIndex
}

func newReplayState(f *lungo.File) *replayState {
	st := &replayState{ns: map[string]*replayNamespace{}}
	names := make([]string, 0, len(f.Namespaces))
	for name := range f.Namespaces {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fns := f.Namespaces[name]
		rn := st.namespace(name)
		rn.indexes = fns.Indexes
		for _, d := range fns.Documents {
			rn.put(d)
		}
	}
	return st
}

func (st *replayState) namespace(name string) *replayNamespace {
	rn := st.ns[name]
	if rn == nil {
		rn = &replayNamespace{byID: map[string]int{}, indexes: map[string]lungo.FileIndex{}}
		st.ns[name] = rn
		st.order = append(st.order, name)
	}
	return rn
}

func (rn *replayNamespace) put(d bsonkit.Doc) {
	key, err := idKey(d)
	if err != nil {
		rn.docs = append(rn.docs, d) // no usable _id (the oplog): keep it as it was
		return
	}
	if i, ok := rn.byID[key]; ok {
		rn.docs[i] = d
		return
	}
	rn.byID[key] = len(rn.docs)
	rn.docs = append(rn.docs, d)
}

func (rn *replayNamespace) delete(id bsonkit.Doc) {
	key, err := idKey(id)
	if err != nil {
		return
	}
	if i, ok := rn.byID[key]; ok {
		rn.docs[i] = nil
		delete(rn.byID, key)
	}
}

// replay applies the records of one journal generation. A record that is
// cut short or fails its checksum ends the generation: it is where a crash
// interrupted an append that was never acknowledged.
func (st *replayState) replay(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("local: open the store journal: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var head [8]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return nil // the end, or a header cut short
		}
		n := binary.LittleEndian.Uint32(head[0:4])
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil
		}
		if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(head[4:8]) {
			return nil
		}
		var rec journalRecord
		if err := bson.Unmarshal(body, &rec); err != nil {
			return fmt.Errorf("local: decode a store journal record in %s: %w", path, err)
		}
		for _, op := range rec.Ops {
			st.apply(op)
		}
	}
}

func (st *replayState) apply(op journalOp) {
	switch {
	case op.Drop:
		if _, ok := st.ns[op.NS]; ok {
			delete(st.ns, op.NS)
			for i, name := range st.order {
				if name == op.NS {
					st.order = append(st.order[:i], st.order[i+1:]...)
					break
				}
			}
		}
	case op.Create:
		rn := st.namespace(op.NS)
		rn.indexes = op.Indexes
		if rn.indexes == nil {
			rn.indexes = map[string]lungo.FileIndex{}
		}
	case op.Put != nil:
		st.namespace(op.NS).put(op.Put)
	case op.Delete != nil:
		st.namespace(op.NS).delete(op.Delete)
	}
}

// file is the replayed state in lungo's file format.
func (st *replayState) file() *lungo.File {
	f := &lungo.File{Namespaces: make(map[string]lungo.FileNamespace, len(st.ns))}
	for _, name := range st.order {
		rn := st.ns[name]
		docs := make(bsonkit.List, 0, len(rn.docs))
		for _, d := range rn.docs {
			if d != nil {
				docs = append(docs, d)
			}
		}
		f.Namespaces[name] = lungo.FileNamespace{Documents: docs, Indexes: rn.indexes}
	}
	return f
}
