package traceview

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuildKeepsEveryNodeOnce: whatever the drafts' links (a parent not
// stored, parents in a cycle, a node twice, a node without a start, an end
// before its start), every node is in the view once, after its parent,
// with a non-negative offset and duration.
func TestBuildKeepsEveryNodeOnce(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	node := func(id string, ms int, parents ...string) draft {
		n := draft{Node: Node{ID: id, Kind: KindEvent, Name: id}, parents: parents}
		if ms >= 0 {
			n.StartedAt = at(ms)
		}
		return n
	}
	before := at(5)
	backwards := node("backwards", 10, "root")
	backwards.span(&before)
	for _, tt := range []struct {
		name    string
		drafts  []draft
		want    []string // ids in view order
		parents map[string]string
	}{
		{"unknown parent: a root", []draft{node("a", 0), node("b", 5, "gone", "also-gone")},
			[]string{"a", "b"}, map[string]string{"b": ""}},
		{"first parent that exists", []draft{node("a", 0), node("w", 1), node("e", 2, "missing", "w", "a")},
			[]string{"a", "w", "e"}, map[string]string{"e": "w"}},
		{"cycle", []draft{node("x", 3, "y"), node("y", 4, "x")},
			[]string{"x", "y"}, map[string]string{"x": "", "y": "x"}},
		{"self", []draft{node("s", 1, "s")}, []string{"s"}, map[string]string{"s": ""}},
		{"twice", []draft{node("d", 1), node("d", 2)}, []string{"d"}, nil},
		{"no start: its parent's", []draft{node("p", 7), node("c", -1, "p")},
			[]string{"p", "c"}, map[string]string{"c": "p"}},
		{"siblings by start", []draft{node("root", 0), node("late", 9, "root"), node("early", 2, "root")},
			[]string{"root", "early", "late"}, nil},
		{"end before start", []draft{node("root", 0), backwards}, []string{"root", "backwards"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := build("t", false, tt.drafts)
			var ids []string
			pos := map[string]int{}
			for i, n := range v.Nodes {
				ids = append(ids, n.ID)
				pos[n.ID] = i
				assert.GreaterOrEqual(t, n.OffsetMs, int64(0))
				assert.False(t, n.StartedAt.IsZero(), n.ID)
				if n.DurationMs != nil {
					assert.GreaterOrEqual(t, *n.DurationMs, int64(0))
				}
				if n.ParentID != "" {
					p, ok := pos[n.ParentID]
					require.True(t, ok, "%s: parent %s not before it", n.ID, n.ParentID)
					assert.Less(t, p, i)
				}
			}
			assert.Equal(t, tt.want, ids)
			for id, p := range tt.parents {
				assert.Equal(t, p, v.Nodes[pos[id]].ParentID, id)
			}
		})
	}
}
