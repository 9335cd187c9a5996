package traceview

import (
	"slices"
	"time"

	"github.com/streamops/streamops/internal/store"
)

// The kinds of node.
const (
	KindWebhook    = "webhook"
	KindWorkflow   = "workflow"
	KindStep       = "step"
	KindTask       = "task"
	KindDelivery   = "delivery"
	KindAttempt    = "attempt"
	KindEvent      = "event"
	KindDeadLetter = "deadletter"
)

// Kinds lists every kind of node (the API document's enum).
func Kinds() []string {
	return []string{KindWebhook, KindWorkflow, KindStep, KindTask, KindDelivery, KindAttempt, KindEvent, KindDeadLetter}
}

// View is one trace as a tree: GET /api/traces/{traceId}'s answer.
type View struct {
	TraceID string `json:"traceId"`
	// StartedAt is the earliest node's start, EndedAt the latest known
	// end (or start), DurationMs the span between them.
	StartedAt  time.Time `json:"startedAt"`
	EndedAt    time.Time `json:"endedAt"`
	DurationMs int64     `json:"durationMs"`
	// Truncated says the trace has more than store.MaxTraceEvents events:
	// the later ones are not shown.
	Truncated bool `json:"truncated"`
	// Nodes are in causal order: depth first, a parent before its
	// children, siblings by start.
	Nodes []Node `json:"nodes"`
}

// Node is one thing stored under the trace.
type Node struct {
	// ID is "<kind>:<ref>" (a step's "step:<workflowId>:<index>", an
	// attempt's "attempt:<outboxId>:<n>"), unique in the view.
	ID string `json:"id"`
	// ParentID is the node it hangs under, "" for a root.
	ParentID string `json:"parentId"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Status   string `json:"status,omitempty"`
	// StartedAt is when it began; EndedAt and DurationMs are left out
	// while it runs or when unknown. OffsetMs is StartedAt after the
	// trace's start.
	StartedAt  time.Time  `json:"startedAt"`
	EndedAt    *time.Time `json:"endedAt,omitempty"`
	DurationMs *int64     `json:"durationMs,omitempty"`
	OffsetMs   int64      `json:"offsetMs"`
	// Ref is the id of what it shows (webhook event, workflow, task,
	// event, outbox entry or dead letter id), to link to.
	Ref    string         `json:"ref,omitempty"`
	Detail map[string]any `json:"detail,omitempty"`
}

// Depth is how deep each node of nodes (in View order) sits: 0 for a
// root.
func Depth(nodes []Node) []int {
	depth := make(map[string]int, len(nodes))
	out := make([]int, len(nodes))
	for i, n := range nodes {
		if d, ok := depth[n.ParentID]; ok && n.ParentID != "" {
			out[i] = d + 1
		}
		depth[n.ID] = out[i]
	}
	return out
}

// draft is a node before it is linked: the ids of the nodes it may hang
// under, most specific first (the first that exists is its parent).
type draft struct {
	Node
	parents []string
}

// Build draws the view of t.
func Build(t store.Trace) View {
	return build(t.TraceID, t.Truncated, draftsOf(t))
}

// build links drafts into the tree: each hangs under its first parent
// that exists, at the root otherwise (never dropped); a node seen twice is
// kept once; siblings are ordered by start, stably (events arrive in
// causal order). A node without a start takes its parent's.
func build(traceID string, truncated bool, drafts []draft) View {
	v := View{TraceID: traceID, Truncated: truncated, Nodes: []Node{}}
	index := make(map[string]int, len(drafts))
	var nodes []draft
	for _, d := range drafts {
		if _, seen := index[d.ID]; !seen {
			index[d.ID] = len(nodes)
			nodes = append(nodes, d)
		}
	}
	for _, n := range nodes {
		if n.StartedAt.IsZero() {
			continue
		}
		if v.StartedAt.IsZero() || n.StartedAt.Before(v.StartedAt) {
			v.StartedAt = n.StartedAt
		}
		end := n.StartedAt
		if n.EndedAt != nil {
			end = *n.EndedAt
		}
		if end.After(v.EndedAt) {
			v.EndedAt = end
		}
	}
	v.DurationMs = v.EndedAt.Sub(v.StartedAt).Milliseconds()

	children := map[string][]int{}
	for i := range nodes {
		n := &nodes[i]
		n.ParentID = ""
		for _, p := range n.parents {
			if _, ok := index[p]; ok && p != n.ID {
				n.ParentID = p
				break
			}
		}
		children[n.ParentID] = append(children[n.ParentID], i)
	}
	// A node starts no later than what hangs under it: the waterfall draws
	// a parent around its children (a webhook row is stored a moment after
	// its webhook.received event is stamped). Its duration follows.
	enclosed := make([]bool, len(nodes))
	var enclose func(i int) time.Time
	enclose = func(i int) time.Time {
		if enclosed[i] {
			return nodes[i].StartedAt
		}
		enclosed[i] = true
		for _, c := range children[nodes[i].ID] {
			if cs := enclose(c); !cs.IsZero() && (nodes[i].StartedAt.IsZero() || cs.Before(nodes[i].StartedAt)) {
				if !nodes[i].StartedAt.IsZero() {
					nodes[i].StartedAt = cs
					nodes[i].span(nodes[i].EndedAt)
				}
			}
		}
		return nodes[i].StartedAt
	}
	for i := range nodes {
		enclose(i)
	}
	startOf := func(i int) time.Time {
		if nodes[i].StartedAt.IsZero() {
			return v.StartedAt
		}
		return nodes[i].StartedAt
	}
	for _, c := range children {
		slices.SortStableFunc(c, func(a, b int) int { return startOf(a).Compare(startOf(b)) })
	}

	visited := make([]bool, len(nodes))
	var visit func(i int, parentStart time.Time)
	visit = func(i int, parentStart time.Time) {
		visited[i] = true
		n := nodes[i].Node
		if n.StartedAt.IsZero() {
			n.StartedAt = parentStart
		}
		n.OffsetMs = max(0, n.StartedAt.Sub(v.StartedAt).Milliseconds())
		v.Nodes = append(v.Nodes, n)
		for _, c := range children[n.ID] {
			if !visited[c] {
				visit(c, n.StartedAt)
			}
		}
	}
	for _, r := range children[""] {
		visit(r, v.StartedAt)
	}
	// A node whose parents form a cycle is reached from no root: it
	// becomes one.
	for i := range nodes {
		if !visited[i] {
			nodes[i].ParentID = ""
			visit(i, v.StartedAt)
		}
	}
	return v
}

// span sets n's end and duration when the end is known and not before the
// start.
func (n *Node) span(end *time.Time) {
	if end == nil || end.IsZero() {
		return
	}
	e := *end
	n.EndedAt = &e
	if !n.StartedAt.IsZero() {
		d := max(0, e.Sub(n.StartedAt).Milliseconds())
		n.DurationMs = &d
	}
}

// parentsOf is ids without those naming nothing ("" or a kind without
// an id, "workflow:").
func parentsOf(ids ...string) []string {
	return slices.DeleteFunc(ids, func(id string) bool {
		return id == "" || id[len(id)-1] == ':'
	})
}
