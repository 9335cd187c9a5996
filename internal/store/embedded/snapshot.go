package embedded

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
)

// writeSnapshot writes c to path in lungo's file format (the document
// lungo.FileStore reads: {namespaces: {<ns>: {documents: [...], indexes:
// {...}}}}) atomically and durably: a temporary file beside it, fsynced,
// renamed over it, the directory fsynced.
//
// lungo.FileStore.Store marshals the whole file into one buffer first,
// which holds the data's size twice over while it grows; on a store of
// hundreds of MB that set off garbage collections of the whole heap in
// the middle of the commits the compaction runs beside. This writes one
// document at a time through a buffer of its own, and fills in the
// enclosing documents' lengths once they are known. step, when not nil,
// is called after every document (a pacer's).
func writeSnapshot(path string, mode os.FileMode, c *lungo.Catalog, step func()) error {
	if mode == 0 {
		mode = 0o666
	}
	tmp := path + ".tmp"
	if err := os.Remove(tmp); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("local: remove a stale snapshot: %w", err)
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("local: create the snapshot: %w", err)
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(tmp)
	}()
	w := &snapshotWriter{w: bufio.NewWriterSize(&pacedSyncer{f: f, every: snapshotSyncBytes}, 1<<20), step: step}
	w.file(c)
	if w.err == nil {
		w.err = w.w.Flush()
	}
	for _, p := range w.lengths {
		if w.err != nil {
			break
		}
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(p.length))
		_, w.err = f.WriteAt(b[:], p.at)
	}
	if w.err != nil {
		return fmt.Errorf("local: write the snapshot: %w", w.err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("local: sync the snapshot: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("local: close the snapshot: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("local: put the snapshot in place: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

// snapshotSyncBytes is how much of a snapshot is written before it is
// synced to disk. Left to one fsync at the end, the whole snapshot (hundreds
// of MB on a large store) would be dirty in the page cache at once, and the
// journal's fsync in every commit beside the compaction can wait behind its
// writeback (ext4 orders a file's data before the metadata it commits):
// commits stalled for seconds. Synced as it goes, a commit waits behind
// this much at most.
const snapshotSyncBytes = 8 << 20

// syncFile is the part of *os.File a snapshot is written through.
type syncFile interface {
	Write(p []byte) (int, error)
	Sync() error
}

// pacedSyncer writes to f and syncs it after every every bytes.
type pacedSyncer struct {
	f        syncFile
	every    int64
	unsynced int64
}

func (p *pacedSyncer) Write(b []byte) (int, error) {
	n, err := p.f.Write(b)
	p.unsynced += int64(n)
	if err == nil && p.unsynced >= p.every {
		err = p.f.Sync()
		p.unsynced = 0
	}
	return n, err
}

// snapshotWriter encodes a catalog as BSON, streamed: a document's length
// is written as a placeholder and recorded, to be filled in at its offset
// once the document is complete.
type snapshotWriter struct {
	w       *bufio.Writer
	off     int64
	lengths []lengthAt
	buf     []byte // one document's encoding, reused
	err     error
	step    func() // after each document, when not nil
}

// lengthAt is a document length to write at an offset of the file.
type lengthAt struct {
	at     int64
	length int64
}

func (s *snapshotWriter) write(b []byte) {
	if s.err != nil {
		return
	}
	n, err := s.w.Write(b)
	s.off += int64(n)
	s.err = err
}

// begin starts a document and returns its start for end.
func (s *snapshotWriter) begin() int64 {
	at := s.off
	s.write([]byte{0, 0, 0, 0})
	return at
}

// end closes the document begun at at.
func (s *snapshotWriter) end(at int64) {
	s.write([]byte{0})
	length := s.off - at
	if length > math.MaxInt32 && s.err == nil {
		s.err = fmt.Errorf("the data is larger than a BSON document may be (%d bytes)", length)
	}
	s.lengths = append(s.lengths, lengthAt{at: at, length: length})
}

// key writes an element's type and name.
func (s *snapshotWriter) key(t bsontype.Type, name string) {
	s.write([]byte{byte(t)})
	s.write([]byte(name))
	s.write([]byte{0})
}

// value writes v, marshalled as a whole document, under name.
func (s *snapshotWriter) value(name string, v any) {
	if s.err != nil {
		return
	}
	s.buf, s.err = bson.MarshalAppend(s.buf[:0], v)
	s.key(bsontype.EmbeddedDocument, name)
	s.write(s.buf)
}

// file writes c as lungo.BuildFile(c) would marshal.
func (s *snapshotWriter) file(c *lungo.Catalog) {
	names := make([]string, 0, len(c.Namespaces))
	handles := make(map[string]lungo.Handle, len(c.Namespaces))
	for h := range c.Namespaces {
		names = append(names, h.String())
		handles[h.String()] = h
	}
	sort.Strings(names)

	root := s.begin()
	s.key(bsontype.EmbeddedDocument, "namespaces")
	all := s.begin()
	for _, name := range names {
		ns := c.Namespaces[handles[name]]
		s.key(bsontype.EmbeddedDocument, name)
		one := s.begin()
		s.key(bsontype.Array, "documents")
		docs := s.begin()
		n := 0
		ns.Documents.Each(func(d bsonkit.Doc) bool {
			s.value(strconv.Itoa(n), d)
			n++
			if s.step != nil {
				s.step()
			}
			return s.err == nil
		})
		s.end(docs)
		s.value("indexes", fileIndexes(ns))
		s.end(one)
	}
	s.end(all)
	s.end(root)
}
