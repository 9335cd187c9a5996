package traceview

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
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

// TestWorkflowStepsShowWhereItStands: a workflow's finished steps, and
// the step it failed at (ended when it failed) or is running (no end).
func TestWorkflowStepsShowWhereItStands(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(ms int) *time.Time { v := t0.Add(time.Duration(ms) * time.Millisecond); return &v }
	done := []store.StepProgress{{StepName: "validate", StepIndex: 0, CompletedAt: *at(20), Duration: 10}}
	for _, tt := range []struct {
		name, status string
		completedAt  *time.Time
		want         []string // the step nodes: "name status start-ms end-ms"
	}{
		{"failed at its second step", status.WorkflowFailed, at(70),
			[]string{"validate completed 10 20", "transform failed 20 70"}},
		{"running its second step", status.WorkflowProcessing, nil,
			[]string{"validate completed 10 20", "transform running 20 -"}},
		{"pending: no step runs", status.WorkflowPending, nil, []string{"validate completed 10 20"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wf := store.Workflow{WorkflowID: "wf-1", Name: "n", Steps: []string{"validate", "transform", "store"},
				Status: tt.status, CurrentStepIndex: 1, StepResults: done, CreatedAt: t0, StartedAt: at(5), CompletedAt: tt.completedAt}
			var got []string
			for _, d := range workflowNodes(wf, map[string]string{}) {
				if d.Kind != KindStep {
					continue
				}
				end := "-"
				if d.EndedAt != nil {
					end = fmt.Sprint(d.EndedAt.Sub(t0).Milliseconds())
				}
				got = append(got, fmt.Sprintf("%s %s %d %s", d.Name, d.Status, d.StartedAt.Sub(t0).Milliseconds(), end))
				assert.Equal(t, []string{"workflow:wf-1"}, d.parents)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestAParentEnclosesItsChildren: a node starts no later than what hangs
// under it (a webhook row is stored a moment after its webhook.received
// event is stamped), and its duration grows to match; a node already
// starting first keeps its times.
func TestAParentEnclosesItsChildren(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(ms int) *time.Time { v := t0.Add(time.Duration(ms) * time.Millisecond); return &v }
	for _, tt := range []struct {
		name               string
		parentStart, child int
		wantStart, wantDur int64
	}{
		{"child first: the parent starts with it", 30, 0, 0, 80},
		{"grandchild first", 30, 10, 0, 80},
		{"parent first: unchanged", 0, 10, 0, 80},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parent := draft{Node: Node{ID: "webhook:w", Kind: KindWebhook, StartedAt: *at(tt.parentStart)}}
			parent.span(at(80))
			child := draft{Node: Node{ID: "workflow:f", Kind: KindWorkflow, StartedAt: *at(tt.child)}, parents: []string{"webhook:w"}}
			grand := draft{Node: Node{ID: "event:e", Kind: KindEvent, StartedAt: *at(0)}, parents: []string{"workflow:f"}}
			if tt.name != "grandchild first" {
				grand.StartedAt = *at(tt.child)
			}
			v := build("t", false, []draft{parent, child, grand})
			require.Len(t, v.Nodes, 3)
			assert.Equal(t, "webhook:w", v.Nodes[0].ID)
			assert.Equal(t, tt.wantStart, v.Nodes[0].OffsetMs)
			require.NotNil(t, v.Nodes[0].DurationMs)
			assert.Equal(t, tt.wantDur, *v.Nodes[0].DurationMs)
			for _, n := range v.Nodes[1:] {
				assert.GreaterOrEqual(t, n.StartedAt, v.Nodes[0].StartedAt, n.ID)
			}
		})
	}
}
