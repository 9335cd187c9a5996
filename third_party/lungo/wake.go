package lungo

import (
	"context"

	"github.com/256dpi/lungo/bsonkit"
)

// StreamOps patch: an index that is neither unique nor expiring is dormant
// until a query needs it (see mongokit.Collection.Wake). A read cannot
// build it, since its catalog is shared with every other reader, so each
// operation that takes a filter first asks wake to build, in a write
// transaction of its own, the dormant indexes its filter would use; the
// operation then runs on the catalog that holds them.

// wake builds the dormant indexes of handle's namespace that the queries'
// plans would use, and commits them. It does nothing when there are none,
// inside a session's transaction (which holds the write token; its
// queries are then served by the built indexes alone) or when the token
// cannot be had; the operation that asked is correct either way, only
// slower.
func (e *Engine) wake(ctx context.Context, handle Handle, queries ...bsonkit.Doc) {
	if ns := e.Catalog().Namespaces[handle]; ns == nil || !ns.Drowsy(queries...) {
		return
	}
	ctx = ensureContext(ctx)
	if sess, ok := ctx.Value(sessionKey{}).(*Session); ok && sess.Transaction() != nil {
		return
	}
	txn, err := e.Begin(ctx, true)
	if err != nil {
		return
	}
	defer e.Abort(txn)
	if woken, err := txn.Wake(handle, queries...); err != nil || len(woken) == 0 {
		return
	}
	_ = e.Commit(txn)
}

// Wake builds the dormant indexes of handle's namespace that the queries'
// plans would use (see mongokit.Collection.Wake) and returns their names.
// The transaction is then dirty: its commit writes no document.
func (t *Transaction) Wake(handle Handle, queries ...bsonkit.Doc) ([]string, error) {
	// acquire write lock
	t.mutex.Lock()
	defer t.mutex.Unlock()

	// check namespace
	ns := t.catalog.Namespaces[handle]
	if ns == nil {
		return nil, nil
	}

	// build them on a clone (O(1) until written)
	clone := t.catalog.Clone()
	namespace := ns.Clone()
	woken, err := namespace.Wake(queries...)
	if err != nil || len(woken) == 0 {
		return nil, err
	}
	clone.Namespaces[handle] = namespace
	t.catalog = clone
	t.dirty = true

	return woken, nil
}
