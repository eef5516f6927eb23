package loader

import (
	"context"
	"fmt"

	"github.com/ilgraph/ilgraph/graph"
)

// pendingEdits returns the cases changed through the core (the API) since
// they were last exported; nil without a database.
func pendingEdits(ctx context.Context, db Store) (map[string]graph.PendingEdit, error) {
	if db == nil {
		return nil, nil
	}
	return db.PendingEdits(ctx)
}

// editConflict is the problem of a file's case that would undo a change
// made through the API and not yet exported: the case was created, updated,
// restored or deleted there, and the file does not hold it as it is now.
// A load never overwrites such a change; `ilgraph export` writes the cases
// as they are (and settles their changes), after which files win again
// (docs/case-format.md#files-and-edits-made-in-the-product).
func editConflict(p Parsed, pending map[string]graph.PendingEdit) *Problem {
	pe, ok := pending[p.Case.ID]
	if !ok || (pe.Exists && graph.ContentHash(p.Case) == pe.Hash) {
		return nil
	}
	what := "changed"
	if !pe.Exists {
		what = "deleted"
	}
	return &Problem{Pos: p.Pos, CaseID: p.Case.ID, Msg: fmt.Sprintf(
		"conflict: the case was %s through the API (version %d, %s by %s at %s) after it was last exported, and this file does not hold that version; "+
			"loading it would undo the change: run `ilgraph export DIR` to write the cases as they are, then edit those files",
		what, pe.Version, pe.Action, pe.By, pe.At)}
}
