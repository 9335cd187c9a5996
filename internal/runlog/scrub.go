package runlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/tracing"
)

// New is the logger every program writes with: JSON lines to w from
// level up, each scrubbed of personal data (Scrubbing) and carrying the
// trace_id and span_id of the context it is logged with.
func New(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(Scrubbing(tracing.LogHandler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))))
}

// Scrubbing wraps h so that each personal datum pii.ScrubText finds is
// replaced before h writes a line: in the message and in every attribute's
// value, the logger's own (With) and the record's, inside groups too. A
// string is scrubbed, an error or a fmt.Stringer by its text, and any
// other value (a struct, a map, a slice) by its JSON; numbers, booleans,
// times and durations are kept, and so are keys and group names, which
// the code writes. A line with nothing to scrub goes to h as it came.
func Scrubbing(h slog.Handler) slog.Handler { return scrubbing{h} }

type scrubbing struct{ inner slog.Handler }

// Enabled is the inner handler's.
func (h scrubbing) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

// Handle hands the inner handler r with its message and attributes
// scrubbed.
func (h scrubbing) Handle(ctx context.Context, r slog.Record) error {
	msg, _ := pii.ScrubText(r.Message)
	var attrs []slog.Attr // nil until an attribute changes
	i := 0
	r.Attrs(func(a slog.Attr) bool {
		s, ok := scrubAttr(a)
		if ok && attrs == nil {
			attrs = firstAttrs(r, i)
		}
		if attrs != nil {
			attrs = append(attrs, s)
		}
		i++
		return true
	})
	if attrs == nil {
		r.Message = msg // r is this call's copy; its attributes are untouched
		return h.inner.Handle(ctx, r)
	}
	out := slog.NewRecord(r.Time, r.Level, msg, r.PC)
	out.AddAttrs(attrs...)
	return h.inner.Handle(ctx, out)
}

// firstAttrs is a copy of r's first n attributes, with room for the rest.
func firstAttrs(r slog.Record, n int) []slog.Attr {
	out := make([]slog.Attr, 0, r.NumAttrs())
	r.Attrs(func(a slog.Attr) bool {
		if len(out) == n {
			return false
		}
		out = append(out, a)
		return true
	})
	return out
}

// WithAttrs scrubs attrs once, for every line the derived logger writes.
func (h scrubbing) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i], _ = scrubAttr(a)
	}
	return scrubbing{h.inner.WithAttrs(out)}
}

// WithGroup keeps the wrapper around the handler with the group.
func (h scrubbing) WithGroup(name string) slog.Handler { return scrubbing{h.inner.WithGroup(name)} }

// scrubAttr is a with its value scrubbed; changed reports whether anything
// was replaced (a is returned as it came otherwise).
func scrubAttr(a slog.Attr) (_ slog.Attr, changed bool) {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s, ok := pii.ScrubText(v.String()); ok {
			return slog.String(a.Key, s), true
		}
	case slog.KindGroup:
		if g, ok := scrubGroup(v.Group()); ok {
			return slog.Attr{Key: a.Key, Value: slog.GroupValue(g...)}, true
		}
	case slog.KindAny:
		if s, ok := scrubAny(v.Any()); ok {
			return slog.Attr{Key: a.Key, Value: s}, true
		}
	}
	return a, false
}

// scrubGroup is the attributes of a group, scrubbed; a copy only when one
// changed.
func scrubGroup(g []slog.Attr) ([]slog.Attr, bool) {
	var out []slog.Attr
	for i, a := range g {
		s, ok := scrubAttr(a)
		if ok && out == nil {
			out = append(make([]slog.Attr, 0, len(g)), g[:i]...)
		}
		if out != nil {
			out = append(out, s)
		}
	}
	return out, out != nil
}

// scrubAny is the scrubbed value of x when it had personal data: an
// error's or a Stringer's text as a string, anything else's JSON as the
// JSON handler would write it (a string when the scrubbed text is no
// longer JSON).
func scrubAny(x any) (slog.Value, bool) {
	var text string
	switch x := x.(type) {
	case nil:
		return slog.Value{}, false
	case error:
		text = x.Error()
	case fmt.Stringer:
		text = x.String()
	case []byte:
		text = string(x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			text = fmt.Sprintf("%+v", x)
			break
		}
		s, ok := pii.ScrubText(string(b))
		if !ok {
			return slog.Value{}, false
		}
		if json.Valid([]byte(s)) {
			return slog.AnyValue(json.RawMessage(s)), true
		}
		return slog.StringValue(s), true
	}
	s, ok := pii.ScrubText(text)
	return slog.StringValue(s), ok
}
