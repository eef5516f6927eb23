package explore

import (
	"context"
	"time"

	"github.com/ilgraph/ilgraph"
)

// CaseWriter stores the core's changes to cases and their history
// (graph.DB implements it).
type CaseWriter interface {
	// WriteCase makes one change in one transaction: the case, its tags,
	// its history entry and the corpus version together, or nothing
	// (ECONFLICT for a stale version, ENOTFOUND for an unknown case).
	WriteCase(ctx context.Context, ch ilgraph.CaseChange) (*ilgraph.Revision, error)
	// CaseHistory returns a case's revisions, newest first, and whether
	// the case exists; ENOTFOUND when it neither exists nor has a history.
	CaseHistory(ctx context.Context, id string) ([]ilgraph.Revision, bool, error)
	// CaseVersionJSON returns the JSON of one version of a case.
	CaseVersionJSON(ctx context.Context, id string, v int64) (string, error)
	// CaseJSON returns a case's JSON and version; "" for an unknown case.
	CaseJSON(ctx context.Context, id string) (string, int64, error)
	// MachineTaggedCases returns a page of the review queue — the ids of
	// the machine-tagged cases, by date descending, then id — and its
	// length.
	MachineTaggedCases(ctx context.Context, offset, limit int) ([]string, int, error)
}

// CaseValidator checks a case given to a write as `ilgraph load --strict`
// checks a file (loader.Validator): the case, or an EINVALID *ilgraph.Error
// whose Problems name each field at fault.
type CaseValidator interface {
	ValidateCase(ctx context.Context, data []byte) (*ilgraph.Case, error)
}

// WithWrites lets the core change cases: w stores the changes, v is the
// one validator every write goes through. Without it every write answers
// EUNAVAILABLE (after the authorization check).
func WithWrites(w CaseWriter, v CaseValidator) Option {
	return func(s *Service) { s.writer, s.validator = w, v }
}

// MaxCaseBytes bounds the JSON of one case given to a write: far above
// any real case (the seeds' largest is a few kilobytes), far below what
// the loader's field limits would allow in total.
const MaxCaseBytes = 1 << 20

// CreateCase adds the case data holds (the library's JSON format). Its id
// must be new, or the id of a deleted case (whose versions it continues).
func (s *Service) CreateCase(ctx context.Context, data []byte) (*ilgraph.Revision, error) {
	c, err := s.checkedCase(ctx, data)
	if err != nil {
		return nil, err
	}
	return s.write(ctx, ilgraph.CaseChange{Action: ilgraph.ActionCreate, ID: c.ID, Case: c})
}

// UpdateCase replaces the case id, which the writer read at version, with
// the case data holds (the same id). A stale version answers ECONFLICT and
// changes nothing.
func (s *Service) UpdateCase(ctx context.Context, id string, version int64, data []byte) (*ilgraph.Revision, error) {
	if err := ilgraph.Require(ctx, ilgraph.RoleEditor); err != nil {
		return nil, err
	}
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	c, err := s.checkedCase(ctx, data)
	if err != nil {
		return nil, err
	}
	if c.ID != id {
		return nil, &ilgraph.Error{Code: ilgraph.EINVALID, Message: "the case's id is not the id of the case updated",
			Problems: []ilgraph.InputProblem{{Field: "id", Message: "is " + ilgraph.Clip(c.ID, 60) + ", the case updated is " + ilgraph.Clip(id, 60) + ": a case's id cannot change"}}}
	}
	return s.write(ctx, ilgraph.CaseChange{Action: ilgraph.ActionUpdate, ID: id, Case: c, Expect: version})
}

// DeleteCase deletes the case id, which the writer read at version; its
// history keeps it (RestoreCase brings it back). A case other cases name
// (related, recurrence_of) answers ECONFLICT.
func (s *Service) DeleteCase(ctx context.Context, id string, version int64) (*ilgraph.Revision, error) {
	if err := ilgraph.Require(ctx, ilgraph.RoleEditor); err != nil {
		return nil, err
	}
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	return s.write(ctx, ilgraph.CaseChange{Action: ilgraph.ActionDelete, ID: id, Expect: version})
}

// RestoreCase writes version from of the case id again, as a new version
// (the writer read the case at version; a deleted case, at its delete's).
// The restored JSON is validated as any write is: a version that no
// longer loads (its terms left the vocabulary) is refused with its
// problems.
func (s *Service) RestoreCase(ctx context.Context, id string, version, from int64) (*ilgraph.Revision, error) {
	if err := ilgraph.Require(ctx, ilgraph.RoleEditor); err != nil {
		return nil, err
	}
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	if from <= 0 {
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldRestoreFrom, "must be a version of the case (1 or more), not %d", from)
	}
	if s.writer == nil {
		return nil, errNoWrites
	}
	js, err := s.writer.CaseVersionJSON(ctx, id, from)
	if err != nil {
		return nil, err
	}
	c, err := s.validator.ValidateCase(ctx, []byte(js))
	if err != nil {
		return nil, err
	}
	return s.write(ctx, ilgraph.CaseChange{Action: ilgraph.ActionRestore, ID: id, Case: c, Expect: version, RestoredFrom: from})
}

// CaseHistory lists the writes of the case id through the core, newest
// first (a case only ever loaded from files has none). A deleted case
// keeps its history; an id never seen answers ENOTFOUND.
func (s *Service) CaseHistory(ctx context.Context, id string) ([]ilgraph.Revision, error) {
	if err := s.mayRead(ctx); err != nil {
		return nil, err
	}
	if s.writer == nil {
		return nil, errNoWrites
	}
	revs, _, err := s.writer.CaseHistory(ctx, id)
	return revs, err
}

// CaseJSON returns the case's JSON as stored (as loaded, or as last
// written) and its version, or ENOTFOUND. Without writes the version is 0.
func (s *Service) CaseJSON(ctx context.Context, id string) (string, int64, error) {
	if err := s.mayRead(ctx); err != nil {
		return "", 0, err
	}
	var (
		raw string
		v   int64
	)
	if s.writer != nil {
		var err error
		if raw, v, err = s.writer.CaseJSON(ctx, id); err != nil {
			return "", 0, err
		}
	} else {
		raws, err := s.store.RawJSON(ctx, []string{id})
		if err != nil {
			return "", 0, err
		}
		if len(raws) > 0 {
			raw = raws[0]
		}
	}
	if raw == "" {
		return "", 0, noCase(id)
	}
	return raw, v, nil
}

var errNoWrites = ilgraph.Errorf(ilgraph.EUNAVAILABLE, "this server does not change cases")

func checkVersion(v int64) error {
	if v <= 0 {
		return ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldVersion, "must be the version of the case you read (1 or more), not %d", v)
	}
	return nil
}

// checkedCase authorizes a write and validates the case it gives.
func (s *Service) checkedCase(ctx context.Context, data []byte) (*ilgraph.Case, error) {
	if err := ilgraph.Require(ctx, ilgraph.RoleEditor); err != nil {
		return nil, err
	}
	if s.writer == nil {
		return nil, errNoWrites
	}
	if len(data) > MaxCaseBytes {
		return nil, ilgraph.Errorf(ilgraph.ELIMIT, "the case is %d bytes, more than the limit of %d", len(data), MaxCaseBytes)
	}
	return s.validator.ValidateCase(ctx, data)
}

// write stores one change, then forgets what the core keeps of the corpus
// (term counts, organizations), so that the next question sees it, and
// has a read model that follows writes (Follower) apply it before it
// returns. Without one, the rest follows from the corpus version the
// change moved on: a read model behind it answers no question (the store
// does) and the similarity index is rebuilt before it ranks again.
func (s *Service) write(ctx context.Context, ch ilgraph.CaseChange) (*ilgraph.Revision, error) {
	if err := ilgraph.Require(ctx, ch.Role()); err != nil {
		return nil, err
	}
	if s.writer == nil {
		return nil, errNoWrites
	}
	ch.By = ilgraph.PrincipalFrom(ctx).Name
	if ch.At.IsZero() {
		ch.At = time.Now()
	}
	f, _ := s.rm.(Follower)
	if f != nil {
		release := f.Hold()
		defer release()
	}
	rev, err := s.writer.WriteCase(ctx, ch)
	if err != nil {
		return nil, err
	}
	s.vocab.forget()
	s.orgs.forget()
	if f != nil && rev.CorpusVersion > 0 {
		var c *ilgraph.Case
		if ch.Action != ilgraph.ActionDelete {
			c = ch.Case
		}
		f.Follow(ctx, rev.CorpusVersion, ch.ID, c)
	}
	return rev, nil
}

// Follower is a read model that follows the core's writes in memory
// (memstore.Store): every door answers with a write as soon as it returns,
// without a build of the corpus.
type Follower interface {
	// Hold says that a write is under way: until release, a question that
	// finds the read model behind the graph is answered from the graph, or
	// waits for the write, rather than starting a build.
	Hold() (release func())
	// Follow applies the write that made the corpus version version: the
	// case id as written, nil for a delete. It returns once every door
	// answers with it (false: it could not follow, and the read model is
	// built again from the graph instead).
	Follow(ctx context.Context, version int64, id string, c *ilgraph.Case) bool
}

func (c *vocabCache) forget() {
	c.mu.Lock()
	c.data = nil
	c.mu.Unlock()
}

func (c *orgCache) forget() {
	c.mu.Lock()
	c.data = nil
	c.mu.Unlock()
}
