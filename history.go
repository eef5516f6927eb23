package ilgraph

import "time"

// The actions a case revision records (Revision.Action).
const (
	ActionCreate  = "create"
	ActionUpdate  = "update"
	ActionDelete  = "delete"
	ActionRestore = "restore"
	// ActionReview is a review of a machine-tagged case's tags
	// (explore.Service.ReviewCase): a new version with the tags decided,
	// the case marked reviewed and review.decisions recording the review.
	ActionReview = "review"
)

// Revision is one entry of a case's history: one write made through the
// application core (a load is not recorded; its files have their own
// history). Version is the case's version after the write; JSON is the
// case as the write left it ("" after a delete) and Previous as it was
// before ("" before a create).
type Revision struct {
	CaseID  string
	Version int64
	Action  string // ActionCreate, ActionUpdate, ActionDelete, ActionRestore or ActionReview
	By      string // the principal's name
	At      string // RFC 3339, UTC
	// RestoredFrom is, for a restore, the version whose JSON it wrote.
	RestoredFrom int64
	JSON         string
	Previous     string
	// CorpusVersion is the corpus version the write made (the one before
	// it plus one): the in-memory corpus follows the write to it. 0 when
	// not known.
	CorpusVersion int64
}

// InputProblem is one thing wrong with a case given to a write, as the
// loader reports it for a file: the field at fault (dotted, with list
// indexes: "timeline.resolved_after", "components[2]"; "" for the whole
// case), the tagging rule it breaks (docs/vocabulary.md; "" for other
// problems) and what is wrong.
type InputProblem struct {
	Field   string
	Rule    string
	Message string
}

// CaseChange is one write of one case, as the core hands it to the store.
type CaseChange struct {
	Action string // ActionCreate, ActionUpdate, ActionDelete, ActionRestore or ActionReview
	ID     string
	// Case is what a create, update or restore writes, validated; nil for
	// a delete.
	Case *Case
	// Expect is the version the writer read; a create ignores it (the case
	// must not exist).
	Expect int64
	By     string // the principal's name
	At     time.Time
	// RestoredFrom is, for a restore, the version whose JSON Case holds.
	RestoredFrom int64
}

// Role is the role a change needs: a review, the reviewer's; any other
// change, the editor's.
func (ch CaseChange) Role() Role {
	if ch.Action == ActionReview {
		return RoleReviewer
	}
	return RoleEditor
}

// CorpusChange is one write through the core as the change feed gives it
// (graph.DB.ChangesSince): the corpus version it made, the case and its
// JSON as written ("" for a delete).
type CorpusChange struct {
	Version int64
	ID      string
	JSON    string
}
