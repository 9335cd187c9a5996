package bus

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
)

// envelopeEncoder turns envelopes into record values and keys for one
// Publish call. Its fast path gives exactly the bytes of json.Marshal(env)
// and the key of env.AggregateID(), but reads the payload once, copies it
// instead of re-encoding it, and writes every value into one shared buffer;
// encoding/json needs three passes over the payload (compact on marshal,
// validate and decode for AggregateID), which made publishing ten times
// slower than producing. Anything the fast path is not certain about (a
// payload that is not compact JSON, escapes or HTML characters that
// json.Marshal would rewrite, near-miss id field names) goes through
// json.Marshal and AggregateID themselves. TestEncoderMatchesEncodingJSON
// and FuzzEncoderMatchesEncodingJSON hold it to that.
type envelopeEncoder struct {
	buf []byte

	lastMeta    *events.Metadata
	lastMetaVal events.Metadata
	lastMetaEnc []byte
}

// arenas recycles the value buffers of Publish calls whose every record was
// acknowledged: kgo keeps no reference to a record after its promise, and a
// successful Publish hands none to its caller. Clearing and collecting a
// fresh buffer per call cost more than encoding into it.
var arenas sync.Pool // of *[]byte

func newEnvelopeEncoder(envs []events.Envelope) *envelopeEncoder {
	size := 0
	for i := range envs {
		size += len(envs[i].Payload) + 256
	}
	if p, ok := arenas.Get().(*[]byte); ok && cap(*p) >= size {
		return &envelopeEncoder{buf: (*p)[:0]}
	}
	return &envelopeEncoder{buf: make([]byte, 0, size)}
}

// release returns the buffer for reuse. Call it only when no record
// encoded by e can be read again.
func (e *envelopeEncoder) release() {
	buf := e.buf[:0]
	e.buf = nil
	arenas.Put(&buf)
}

// encodeChunk is how many envelopes one encoding step takes: enough to make
// the hand-off between goroutines cheap, few enough that kgo gets the first
// records almost at once.
const encodeChunk = 256

// encodeInOrder fills recs[i] from envs[i] and calls emit(i, err) for every
// i in input order, as soon as that record is ready; emit runs on the
// calling goroutine, so records reach kgo in input order and per-key order
// holds. Batches of several chunks are encoded on GOMAXPROCS-1 goroutines
// while the caller hands finished chunks to kgo (one more encoder only
// competed with kgo and the caller for the same cores). It returns the
// encoders, whose buffers the records share.
func encodeInOrder(envs []events.Envelope, recs []kgo.Record, topic string, emit func(i int, err error)) []*envelopeEncoder {
	n := len(envs)
	chunks := (n + encodeChunk - 1) / encodeChunk
	workers := min(runtime.GOMAXPROCS(0)-1, chunks)
	if workers < 1 || chunks < 2 {
		enc := newEnvelopeEncoder(envs)
		for i := range envs {
			emit(i, enc.fill(&recs[i], &envs[i], topic))
		}
		return []*envelopeEncoder{enc}
	}

	errs := make([]error, n)
	ready := make([]chan struct{}, chunks)
	for k := range ready {
		ready[k] = make(chan struct{})
	}
	var next atomic.Int64
	encs := make([]*envelopeEncoder, workers)
	for w := range encs {
		encs[w] = newEnvelopeEncoder(envs[w*n/workers : (w+1)*n/workers])
		go func(enc *envelopeEncoder) {
			for {
				k := int(next.Add(1)) - 1
				if k >= chunks {
					return
				}
				for i := k * encodeChunk; i < min(n, (k+1)*encodeChunk); i++ {
					errs[i] = enc.fill(&recs[i], &envs[i], topic)
				}
				close(ready[k])
			}
		}(encs[w])
	}
	for k := range chunks {
		<-ready[k]
		for i := k * encodeChunk; i < min(n, (k+1)*encodeChunk); i++ {
			emit(i, errs[i])
		}
	}
	return encs
}

// encode returns env's JSON and its partition key: as events.New left
// them when nothing changed since (New marshals every event to validate it,
// so that is the second encoding saved), else by the fast path or
// encoding/json.
func (e *envelopeEncoder) encode(env *events.Envelope) (value, key []byte, err error) {
	if value, key, ok := env.Encoding(); ok {
		return value, key, nil
	}
	if encodeWith != nil {
		return encodeWith(env)
	}
	if value, key, ok := e.fast(env); ok {
		return value, key, nil
	}
	if value, err = json.Marshal(env); err != nil {
		return nil, nil, err
	}
	return value, []byte(env.AggregateID()), nil
}

// encodeWith, when set by a benchmark, replaces the fast path and its
// fallback, so another encoder can be measured on the produce path.
var encodeWith func(*events.Envelope) (value, key []byte, err error)

func (e *envelopeEncoder) fast(env *events.Envelope) (value, key []byte, ok bool) {
	if env.Extra != "" {
		return nil, nil, false // a consumed event's added fields: encoding/json writes them
	}
	if !plainASCII(string(env.EventType)) || !plainASCII(env.EventID) || !plainASCII(env.SchemaVersion) {
		return nil, nil, false
	}
	ks, ke, ok := scanPayload(env.Payload)
	if !ok {
		return nil, nil, false
	}
	var meta []byte
	if env.Metadata != nil {
		if meta, ok = e.metadata(env.Metadata); !ok {
			return nil, nil, false
		}
	}

	start := len(e.buf)
	b := append(e.buf, `{"eventType":"`...)
	b = append(b, env.EventType...)
	b = append(b, `","eventId":"`...)
	b = append(b, env.EventID...)
	b = append(b, `","timestamp":"`...)
	b = appendTimestamp(b, env.Timestamp.Time)
	b = append(b, '"')
	if env.SchemaVersion != "" {
		b = append(b, `,"schemaVersion":"`...)
		b = append(b, env.SchemaVersion...)
		b = append(b, '"')
	}
	b = append(b, `,"payload":`...)
	payloadAt := len(b) - start
	b = append(b, env.Payload...)
	if meta != nil {
		b = append(b, `,"metadata":`...)
		b = append(b, meta...)
	}
	b = append(b, '}')
	e.buf = b
	value = b[start:len(b):len(b)]
	if ks < ke {
		key = value[payloadAt+ks : payloadAt+ke : payloadAt+ke]
	}
	return value, key, true
}

// metadata encodes m with json.Marshal, reusing the previous encoding when
// m equals the previous metadata: a batch usually shares one source.
func (e *envelopeEncoder) metadata(m *events.Metadata) ([]byte, bool) {
	if e.lastMetaEnc != nil && (m == e.lastMeta || metadataComparable && any(*m) == any(e.lastMetaVal)) {
		return e.lastMetaEnc, true
	}
	enc, err := json.Marshal(m)
	if err != nil {
		return nil, false
	}
	e.lastMeta, e.lastMetaVal, e.lastMetaEnc = m, *m, enc
	return enc, true
}

// metadataComparable guards the == above, so a future non-comparable field
// in events.Metadata costs the memo, not a panic or a broken build.
var metadataComparable = reflect.TypeFor[events.Metadata]().Comparable()

// appendTimestamp appends t as events.Time encodes it (TimeLayout, UTC),
// without parsing the layout for every record.
func appendTimestamp(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, events.TimeLayout)
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / 1e6
	b = append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-')
	b = append(b, byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10), 'T')
	b = append(b, byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':')
	b = append(b, byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
	return b
}

// plainASCII reports whether json.Marshal writes s between quotes unchanged:
// printable ASCII other than '"', '\\', '<', '>' and '&'.
func plainASCII[T string | []byte](s T) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if special(uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56) != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if byteClass[s[i]] != classPlain || s[i] >= 0x80 {
			return false
		}
	}
	return true
}

const (
	classPlain = iota
	classQuote
	classEscape
	classControl
	classRewritten // json.Marshal escapes < > & (and U+2028/U+2029, lead byte 0xE2)
)

var byteClass = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = classControl
	}
	t['"'], t['\\'] = classQuote, classEscape
	t['<'], t['>'], t['&'], t[0xE2] = classRewritten, classRewritten, classRewritten, classRewritten
	return t
}()

// maxDepth matches encoding/json's nesting limit; deeper goes slow.
const maxDepth = 10000

// payloadScanner validates a payload as compact JSON (json.Marshal's output
// form) and finds the top-level id fields AggregateID reads.
type payloadScanner struct {
	p     []byte
	i     int
	depth int
	// ids[0..2]: workflowId, taskId, webhookEventId value spans.
	ids [3][2]int
	set [3]bool
}

var idFields = events.AggregateIDFields

// scanPayload returns the span of the partition key inside p (start ==
// end when there is none) and whether p is certainly what json.Marshal
// would copy verbatim and AggregateID would read the same way.
func scanPayload(p []byte) (start, end int, ok bool) {
	s := payloadScanner{p: p}
	if len(p) == 0 || p[0] != '{' || !s.object(true) || s.i != len(p) {
		return 0, 0, false
	}
	// AggregateID: workflowId, else taskId, else webhookEventId (even "").
	switch {
	case s.set[0] && s.ids[0][0] < s.ids[0][1]:
		return s.ids[0][0], s.ids[0][1], true
	case s.set[1] && s.ids[1][0] < s.ids[1][1]:
		return s.ids[1][0], s.ids[1][1], true
	case s.set[2]:
		return s.ids[2][0], s.ids[2][1], true
	}
	return 0, 0, true
}

func (s *payloadScanner) value() bool {
	if s.i >= len(s.p) {
		return false
	}
	switch c := s.p[s.i]; {
	case c == '{':
		return s.object(false)
	case c == '[':
		return s.array()
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return false
}

func (s *payloadScanner) object(top bool) bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++ // '{'
	if s.i < len(s.p) && s.p[s.i] == '}' {
		s.i++
		s.depth--
		return true
	}
	for {
		if s.i >= len(s.p) || s.p[s.i] != '"' {
			return false
		}
		ns, ne, ok := s.str()
		if !ok || s.i >= len(s.p) || s.p[s.i] != ':' {
			return false
		}
		s.i++
		field := -1
		if top {
			if field, ok = s.idField(s.p[ns:ne]); !ok {
				return false
			}
		}
		if field >= 0 {
			// The id must be a plain string for the fast path; null or
			// another type changes what AggregateID returns.
			if s.i >= len(s.p) || s.p[s.i] != '"' {
				return false
			}
			vs, ve, ok := s.str()
			if !ok || !plainASCII(s.p[vs:ve]) {
				return false
			}
			s.ids[field], s.set[field] = [2]int{vs, ve}, true
		} else if !s.value() {
			return false
		}
		if s.i >= len(s.p) {
			return false
		}
		switch s.p[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// idField says which id field name is (-1 for none); ok is false for a name
// encoding/json might still match to one (escaped, non-ASCII, other case).
func (s *payloadScanner) idField(name []byte) (int, bool) {
	switch len(name) {
	case len(idFields[0]), len(idFields[1]), len(idFields[2]):
		for f, id := range idFields {
			if len(name) == len(id) && asciiEqualFold(name, id) {
				if string(name) == id {
					return f, true
				}
				return -1, false
			}
		}
	}
	if !plainASCII(name) && (bytes.IndexByte(name, '\\') >= 0 || !isASCII(name)) {
		return -1, false
	}
	return -1, true
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func asciiEqualFold(a []byte, b string) bool {
	for i := range a {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

func (s *payloadScanner) array() bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++ // '['
	if s.i < len(s.p) && s.p[s.i] == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !s.value() || s.i >= len(s.p) {
			return false
		}
		switch s.p[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// str scans a string at s.i and returns the span of its contents.
func (s *payloadScanner) str() (start, end int, ok bool) {
	p := s.p
	i := s.i + 1 // past the opening quote
	start = i
	for {
		i = skipPlain(p, i)
		if i >= len(p) {
			return 0, 0, false
		}
		switch byteClass[p[i]] {
		case classQuote:
			s.i = i + 1
			return start, i, true
		case classEscape:
			s.i = i
			if !s.escape() {
				return 0, 0, false
			}
			i = s.i
		case classRewritten:
			// json.Marshal rewrites < > & and U+2028/U+2029 (E2 80 A8/A9);
			// any other character starting with 0xE2 ("€") is plain.
			if p[i] != 0xE2 || i+2 < len(p) && p[i+1] == 0x80 && p[i+2]&^1 == 0xA8 {
				return 0, 0, false
			}
			i++
		default: // control characters are invalid JSON
			return 0, 0, false
		}
	}
}

// skipPlain returns the index of the first byte at or after i that is not
// plain string content. It tests 32 bytes at a time: payloads are
// mostly long runs of ASCII text, and a byte-by-byte table loop was the
// largest cost of publishing.
func skipPlain(p []byte, i int) int {
	for {
		for i+8 <= len(p) {
			if i+32 <= len(p) {
				w := p[i : i+32 : i+32]
				w0, w1 := binary.LittleEndian.Uint64(w[0:]), binary.LittleEndian.Uint64(w[8:])
				w2, w3 := binary.LittleEndian.Uint64(w[16:]), binary.LittleEndian.Uint64(w[24:])
				// One verdict for the four words: their plain masks ANDed,
				// their high bits ORed.
				if (w0|w1|w2|w3|^(plainMask(w0)&plainMask(w1)&plainMask(w2)&plainMask(w3)))&highs == 0 {
					i += 32
					continue
				}
			}
			if special(binary.LittleEndian.Uint64(p[i:])) != 0 {
				break
			}
			i += 8
		}
		// Look at the flagged word (or the tail) a byte at a time.
		end := min(i+8, len(p))
		for i < end && byteClass[p[i]] == classPlain {
			i++
		}
		if i < end || i == len(p) {
			return i
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special is non-zero when one of the eight bytes in x is not plain ASCII
// string content: below 0x20, '"', '\\', '<', '>', '&', or 0x80 and above.
func special(x uint64) uint64 {
	return (x | ^plainMask(x)) & highs
}

// plainMask has the high bit of each byte of x set when that byte, its own
// high bit cleared, is plain string content (not below 0x20, '"', '\\',
// '<', '>' or '&'). It works on seven bits a byte so no sum carries into
// the next byte, which makes it exact for every byte: b+0x60 reaches 0x80
// exactly when b >= 0x20, and z+0x7F exactly when z != 0, with z the byte
// XOR a special value. '"' and '&' differ only in bit 0x04, '<' and '>'
// only in bit 0x02, so one comparison covers each pair.
func plainMask(x uint64) uint64 {
	const low7 = ones * 0x7F
	y := x & low7
	control := y + ones*0x60
	quoteAmp := ((y & (ones * 0xFB)) ^ (ones * '"')) + low7
	angles := ((y & (ones * 0xFD)) ^ (ones * '<')) + low7
	backslash := (y ^ (ones * '\\')) + low7
	return control & quoteAmp & angles & backslash
}

func (s *payloadScanner) escape() bool {
	s.i++ // backslash
	if s.i >= len(s.p) {
		return false
	}
	switch s.p[s.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i++
		return true
	case 'u':
		if s.i+4 >= len(s.p) {
			return false
		}
		for _, c := range s.p[s.i+1 : s.i+5] {
			if !isHex(c) {
				return false
			}
		}
		s.i += 5
		return true
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *payloadScanner) literal(lit string) bool {
	if len(s.p)-s.i < len(lit) || string(s.p[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

func (s *payloadScanner) number() bool {
	digits := func() int {
		n := 0
		for s.i < len(s.p) && s.p[s.i] >= '0' && s.p[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.p[s.i] == '-' {
		s.i++
	}
	if s.i >= len(s.p) {
		return false
	}
	if s.p[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return false
	}
	if s.i < len(s.p) && s.p[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return false
		}
	}
	if s.i < len(s.p) && (s.p[s.i] == 'e' || s.p[s.i] == 'E') {
		s.i++
		if s.i < len(s.p) && (s.p[s.i] == '+' || s.p[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// errEncode wraps an envelope that json.Marshal refuses.
func errEncode(env *events.Envelope, err error) error {
	return fmt.Errorf("%w: encode %s %s: %w", ErrUnroutable, env.EventType, env.EventID, err)
}
