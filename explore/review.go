package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/suggest"
)

// The review of machine-tagged cases (issue #26, docs/api.md#reviewing-
// machine-tagged-cases): the queue of cases whose tags a machine chose and
// nobody has checked, each with its suggested tags, their confidences and
// the suggestion engine's evidence; and the review itself, which decides on
// every suggested tag and writes the result as a new version of the case,
// marked reviewed and carrying the record of what was suggested and what
// was decided (review.decisions).

// SuggestedTag is one tag a machine chose for a case in the review queue.
type SuggestedTag struct {
	Kind ilgraph.Kind
	ID   string
	// Confidence is the machine's, from the case's tag_confidence; nil
	// when it recorded none for the tag.
	Confidence *float64
	// Evidence is what the suggestion engine says for the term given the
	// case's text (suggest.ImportText: the text the importer tagged),
	// the case itself left out of its statistics: the phrases that
	// matched and the similar cases that voted. Empty when the engine
	// does not point to the term now, or the server has no engine.
	Evidence []suggest.Evidence
}

// ReviewItem is one case of the review queue.
type ReviewItem struct {
	Case *ilgraph.Case
	// Suggested lists the case's tags of the kinds a machine tags
	// (ilgraph.MachineKinds), kind by kind in the case's order: every one
	// needs a decision.
	Suggested []SuggestedTag
	// EvidenceText is the text the evidence was read in; its phrases'
	// Start and End are byte offsets into it.
	EvidenceText string
}

// ReviewQueue is a page of the machine-tagged cases waiting for review.
type ReviewQueue struct {
	Items      []ReviewItem
	TotalCount int
	Offset     int
	PageInfo   PageInfo
}

// Cursor is the cursor of the i-th item of the page.
func (q *ReviewQueue) Cursor(i int) string { return EncodeCursor(q.Offset + i) }

// ReviewQueue lists the machine-tagged cases (ilgraph.Case.MachineTagged)
// newest first — by date descending, then id, as a case list sorted by
// date — one page at a time, each with its suggested tags. It reads as
// every question does (in a private core, a viewer's); only the review
// itself needs a reviewer.
func (s *Service) ReviewQueue(ctx context.Context, page Page) (*ReviewQueue, error) {
	if err := s.mayRead(ctx); err != nil {
		return nil, err
	}
	offset, limit, err := page.bounds(DefaultPageSize)
	if err != nil {
		return nil, err
	}
	if s.writer == nil {
		return nil, errNoWrites
	}
	ids, total, err := s.writer.MachineTaggedCases(ctx, offset, limit)
	if err != nil {
		return nil, err
	}
	if err := pastTheEnd(offset, total); err != nil {
		return nil, err
	}
	cases, err := s.store.CasesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	q := &ReviewQueue{Items: []ReviewItem{}, TotalCount: total, Offset: offset}
	for _, c := range cases {
		if c == nil {
			continue // deleted between the two reads
		}
		item, err := s.reviewItem(ctx, c)
		if err != nil {
			return nil, err
		}
		q.Items = append(q.Items, item)
	}
	q.PageInfo = pageInfo(offset, len(q.Items), total)
	return q, nil
}

// reviewItem lists a case's suggested tags with their confidences and the
// engine's evidence.
func (s *Service) reviewItem(ctx context.Context, c *ilgraph.Case) (ReviewItem, error) {
	item := ReviewItem{Case: c, Suggested: []SuggestedTag{}, EvidenceText: suggest.ImportText(c.Title.En, c.Summary.En)}
	var res *suggest.Result
	if s.suggester != nil && strings.TrimSpace(item.EvidenceText) != "" {
		var err error
		if res, err = s.suggester.SuggestExcluding(ctx, item.EvidenceText, "en", c.ID); err != nil {
			return ReviewItem{}, err
		}
	}
	for _, k := range ilgraph.MachineKinds {
		conf := c.TagConfidence.Of(k)
		for _, id := range c.Tags(k) {
			tag := SuggestedTag{Kind: k, ID: id, Evidence: []suggest.Evidence{}}
			if x, ok := conf[id]; ok {
				tag.Confidence = &x
			}
			if res != nil {
				for _, sg := range res.ByKind[k] {
					if sg.ID == id {
						tag.Evidence = sg.Evidence
						break
					}
				}
			}
			item.Suggested = append(item.Suggested, tag)
		}
	}
	return item, nil
}

// TagDecision is a reviewer's decision on one suggested tag: Decision is
// ilgraph.DecisionAccept, DecisionReject or DecisionReplace, and With the
// term of the same kind that replaces it.
type TagDecision struct {
	Kind     ilgraph.Kind
	Term     string
	Decision string
	With     string
}

// ReviewInput is a review: a decision on every suggested tag, and the tags
// to add. The front doors that take it name its parts as it does —
// decisions[i].kind, .term, .decision, .with; add[i].kind, .term — so that
// the problems of a review (InputProblem.Field) read the same in each.
type ReviewInput struct {
	Decisions []TagDecision
	Add       []ilgraph.Feature
}

// MaxReviewEntries bounds the decisions and the additions of one review:
// a case's lists hold at most 200 terms of a kind (the loader's limit).
const MaxReviewEntries = 1000

// ReviewCase reviews the machine-tagged case id, read at version (a
// reviewer's change): every suggested tag — each of the case's tags of the
// kinds a machine tags — is accepted, rejected or replaced by another term
// of its kind, and in.Add adds tags of any vocabulary kind but the root
// cause. A case has exactly one root cause, so the suggested one can be
// accepted or replaced, not rejected, and none can be added.
//
// The result is written as a new version, one transaction with its history
// entry (action review, with who, when and the JSON before), as any write:
// the tags decided, review.reviewed_at and reviewed_by set (so the case is
// no longer machine-tagged and reviewedOnly lists it), tag_confidence kept
// for the accepted tags only (the machine's confidences in what a person
// chose would mislead), and review.decisions recording every suggestion
// with its confidence and decision, then the additions. Every other field
// of the case's JSON is kept as it was, in its place. The case is validated
// as every write is (`ilgraph load --strict`): a review that leaves a tagging
// rule broken is INVALID with the case's problems.
//
// A stale version answers ECONFLICT, a case that is not machine-tagged
// EINVALID, and a decision on a tag that was not suggested, a missing
// decision or an unknown term EINVALID with every problem named; nothing is
// written then.
func (s *Service) ReviewCase(ctx context.Context, id string, version int64, in ReviewInput) (*ilgraph.Revision, error) {
	if err := ilgraph.Require(ctx, ilgraph.RoleReviewer); err != nil {
		return nil, err
	}
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	if n := len(in.Decisions) + len(in.Add); n > MaxReviewEntries {
		return nil, ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldReviewDecisions, "and add may hold at most %d entries together, not %d", MaxReviewEntries, n)
	}
	if s.writer == nil {
		return nil, errNoWrites
	}
	raw, current, err := s.writer.CaseJSON(ctx, id)
	if err != nil {
		return nil, err
	}
	if raw == "" {
		return nil, noCase(id)
	}
	if current != version {
		return nil, ilgraph.Errorf(ilgraph.ECONFLICT, "case %s is at version %d, not %d: someone changed it since it was read; read it again and redo the change", id, current, version)
	}
	var c ilgraph.Case
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return nil, ilgraph.WrapError(ilgraph.EINTERNAL, err, "reading case %s", id)
	}
	if !c.MachineTagged() {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "case %s is not machine-tagged (review.written_by %q, reviewed_at %q): there is nothing to review", id, ilgraph.Clip(c.Review.WrittenBy, 40), ilgraph.Clip(c.Review.ReviewedAt, 40))
	}
	vocab, err := s.VocabularySnapshot(ctx)
	if err != nil {
		return nil, err
	}
	plan, problems := planReview(&c, in, vocab)
	if len(problems) > 0 {
		return nil, reviewProblems(problems)
	}
	now := time.Now()
	p := ilgraph.PrincipalFrom(ctx)
	data, err := reviewedJSON([]byte(raw), plan, p.Name, now)
	if err != nil {
		return nil, ilgraph.WrapError(ilgraph.EINTERNAL, err, "writing the review of case %s", id)
	}
	reviewed, err := s.validator.ValidateCase(ctx, data)
	if err != nil {
		if e := (*ilgraph.Error)(nil); errors.As(err, &e) && e.Code == ilgraph.EINVALID {
			e.Message = "the case as reviewed breaks the rules every case is checked against: " + e.Message
		}
		return nil, err
	}
	return s.write(ctx, ilgraph.CaseChange{Action: ilgraph.ActionReview, ID: id, Case: reviewed, Expect: version, At: now})
}

// reviewPlan is what a review changes in a case.
type reviewPlan struct {
	tags       map[ilgraph.Kind][]string // every kind's tags after the review (machine kinds and mechanisms)
	confidence *ilgraph.TagConfidence    // the accepted tags' confidences; nil when none is left
	record     []ilgraph.ReviewDecision  // review.decisions
}

type tagKey struct {
	kind ilgraph.Kind
	id   string
}

// planReview checks a review against the case and the vocabulary and
// works out its result, or every problem it has.
func planReview(c *ilgraph.Case, in ReviewInput, vocab map[ilgraph.TermKey]ilgraph.TermInfo) (reviewPlan, []ilgraph.InputProblem) {
	var problems []ilgraph.InputProblem
	problem := func(field, format string, args ...any) {
		problems = append(problems, ilgraph.InputProblem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	known := func(k ilgraph.Kind, id string) bool {
		_, ok := vocab[ilgraph.TermKey{Kind: k, ID: id}]
		return ok
	}
	suggested := map[tagKey]bool{}
	for _, k := range ilgraph.MachineKinds {
		for _, id := range c.Tags(k) {
			suggested[tagKey{k, id}] = true
		}
	}
	decided := map[tagKey]int{} // the index of its decision
	for i, d := range in.Decisions {
		f := fmt.Sprintf("decisions[%d]", i)
		key := tagKey{d.Kind, d.Term}
		switch {
		case !slices.Contains(ilgraph.MachineKinds, d.Kind):
			problem(f+".kind", "%q is not a kind a machine tags and a review decides on (root_cause, component, symptom, contributing, domain)", ilgraph.Clip(string(d.Kind), 40))
			continue
		case !suggested[key]:
			problem(f+".term", "%s %q was not suggested for case %s: its suggested %s tags are %s", d.Kind.Label(), ilgraph.Clip(d.Term, 60), c.ID, d.Kind.Label(), quotedOrNone(c.Tags(d.Kind)))
			continue
		}
		if j, dup := decided[key]; dup {
			problem(f+".term", "%s %q has a decision already (decisions[%d]): one decision per suggested tag", d.Kind.Label(), d.Term, j)
			continue
		}
		decided[key] = i
		switch d.Decision {
		case ilgraph.DecisionAccept:
			if d.With != "" {
				problem(f+".with", "only a replacement names a term to replace with")
			}
		case ilgraph.DecisionReject:
			if d.With != "" {
				problem(f+".with", "only a replacement names a term to replace with")
			}
			if d.Kind == ilgraph.KindRootCause {
				problem(f+".decision", "cannot reject the root cause: a case has exactly one; replace it with the right one instead")
			}
		case ilgraph.DecisionReplace:
			switch {
			case d.With == "":
				problem(f+".with", "is required to replace a tag: the %s that replaces %q", d.Kind.Label(), d.Term)
			case d.With == d.Term:
				problem(f+".with", "is the suggested %s itself: accept it instead", d.Kind.Label())
			case !known(d.Kind, d.With):
				problem(f+".with", "%q is not a %s in the vocabulary", ilgraph.Clip(d.With, 60), d.Kind.Label())
			}
		default:
			problem(f+".decision", "%q is not a decision on a suggested tag: want accept, reject or replace", ilgraph.Clip(d.Decision, 40))
		}
	}
	for _, k := range ilgraph.MachineKinds {
		for _, id := range c.Tags(k) {
			if _, ok := decided[tagKey{k, id}]; !ok {
				problem("decisions", "has no decision on the suggested %s %q: accept, reject or replace every suggested tag", k.Label(), id)
			}
		}
	}
	if len(problems) > 0 {
		return reviewPlan{}, problems
	}

	// The tags after the decisions: accepted ones stay, replacements take
	// their place, rejected ones go; then the additions.
	plan := reviewPlan{tags: map[ilgraph.Kind][]string{}}
	has := map[tagKey]bool{}
	for _, k := range ilgraph.MachineKinds {
		for _, id := range c.Tags(k) {
			if in.Decisions[decided[tagKey{k, id}]].Decision == ilgraph.DecisionAccept {
				has[tagKey{k, id}] = true
			}
		}
	}
	conf := &ilgraph.TagConfidence{}
	kept := false
	for _, k := range ilgraph.MachineKinds {
		list := []string{}
		for _, id := range c.Tags(k) {
			i := decided[tagKey{k, id}]
			d := in.Decisions[i]
			rec := ilgraph.ReviewDecision{Kind: k, Term: id, Decision: d.Decision, With: d.With}
			if x, ok := c.TagConfidence.Of(k)[id]; ok {
				rec.Confidence = &x
			}
			plan.record = append(plan.record, rec)
			switch d.Decision {
			case ilgraph.DecisionAccept:
				list = append(list, id)
				if rec.Confidence != nil {
					conf.Set(k, id, *rec.Confidence)
					kept = true
				}
			case ilgraph.DecisionReplace:
				if has[tagKey{k, d.With}] {
					problem(fmt.Sprintf("decisions[%d].with", i), "%s %q is a tag of the case already", k.Label(), d.With)
					continue
				}
				has[tagKey{k, d.With}] = true
				list = append(list, d.With)
			}
		}
		plan.tags[k] = list
	}
	plan.tags[ilgraph.KindMechanism] = slices.Clone(c.Mechanisms)
	for _, id := range c.Mechanisms {
		has[tagKey{ilgraph.KindMechanism, id}] = true
	}
	for i, a := range in.Add {
		f := fmt.Sprintf("add[%d]", i)
		switch {
		case a.Kind == ilgraph.KindRootCause:
			problem(f+".kind", "cannot add a root cause: a case has exactly one; replace the suggested one instead")
		case !slices.Contains(ilgraph.VocabKinds, a.Kind):
			problem(f+".kind", "%q is not a kind of the vocabulary", ilgraph.Clip(string(a.Kind), 40))
		case !known(a.Kind, a.ID):
			problem(f+".term", "%q is not a %s in the vocabulary", ilgraph.Clip(a.ID, 60), a.Kind.Label())
		case has[tagKey{a.Kind, a.ID}]:
			problem(f+".term", "%s %q is a tag of the case already", a.Kind.Label(), a.ID)
		default:
			has[tagKey{a.Kind, a.ID}] = true
			plan.tags[a.Kind] = append(plan.tags[a.Kind], a.ID)
			plan.record = append(plan.record, ilgraph.ReviewDecision{Kind: a.Kind, Term: a.ID, Decision: ilgraph.DecisionAdd})
		}
	}
	if kept {
		plan.confidence = conf
	}
	return plan, problems
}

func quotedOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return strings.Join(q, ", ")
}

// reviewProblems is the EINVALID error of a review with problems: about
// the decisions, or the additions when those alone are at fault.
func reviewProblems(ps []ilgraph.InputProblem) *ilgraph.Error {
	field := ilgraph.FieldReviewDecisions
	if !slices.ContainsFunc(ps, func(p ilgraph.InputProblem) bool { return strings.HasPrefix(p.Field, "decisions") }) {
		field = ilgraph.FieldReviewAdd
	}
	var b strings.Builder
	fmt.Fprintf(&b, "have %d problem(s); nothing was written", len(ps))
	for i, p := range ps {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(ps)-i)
			break
		}
		fmt.Fprintf(&b, "; %s: %s", p.Field, p.Message)
	}
	return &ilgraph.Error{Code: ilgraph.EINVALID, Field: field, Message: b.String(), Problems: ps}
}

// tagFields are the case format's fields of each kind a review changes.
var tagFields = map[ilgraph.Kind]string{
	ilgraph.KindRootCause: "root_cause", ilgraph.KindComponent: "components", ilgraph.KindSymptom: "symptoms",
	ilgraph.KindContributing: "contributing", ilgraph.KindDomain: "domain", ilgraph.KindMechanism: "mechanisms",
}

// reviewedJSON is the case's JSON with a review's result: its tags,
// tag_confidence and review changed, every other member kept as it was and
// where it was.
func reviewedJSON(raw []byte, plan reviewPlan, by string, at time.Time) ([]byte, error) {
	obj, err := readObject(raw)
	if err != nil {
		return nil, err
	}
	for _, k := range append(slices.Clone(ilgraph.MachineKinds), ilgraph.KindMechanism) {
		var v any = plan.tags[k]
		if k == ilgraph.KindRootCause {
			v = plan.tags[k][0]
		} else if k == ilgraph.KindMechanism && len(plan.tags[k]) == 0 && obj.get("mechanisms") == nil {
			continue // mechanisms may be left out, and were
		}
		if err := obj.set(tagFields[k], v); err != nil {
			return nil, err
		}
	}
	if plan.confidence == nil {
		obj.remove("tag_confidence")
	} else if err := obj.set("tag_confidence", plan.confidence); err != nil {
		return nil, err
	}
	review := object{}
	if r := obj.get("review"); r != nil && !bytes.Equal(bytes.TrimSpace(r), []byte("null")) {
		if review, err = readObject(r); err != nil {
			return nil, fmt.Errorf("review: %w", err)
		}
	}
	for _, m := range []struct {
		key string
		v   any
	}{
		{"reviewed_at", at.UTC().Format(time.RFC3339)},
		{"reviewed_by", by},
		{"decisions", plan.record},
	} {
		if err := review.set(m.key, m.v); err != nil {
			return nil, err
		}
	}
	if err := obj.set("review", json.RawMessage(review.encode())); err != nil {
		return nil, err
	}
	return obj.encode(), nil
}

// object is a JSON object's members in their order, values as written.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

func readObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	obj := object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		obj = append(obj, member{key, v})
	}
	return obj, nil
}

// get returns the value of key (the last, as encoding/json reads a
// repeated key), or nil.
func (o object) get(key string) json.RawMessage {
	var v json.RawMessage
	for _, m := range o {
		if m.key == key {
			v = m.value
		}
	}
	return v
}

// set gives key the value v in the place of its first occurrence (at the
// end when it has none), dropping any repeat.
func (o *object) set(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	for i, m := range *o {
		if m.key == key {
			(*o)[i].value = b
			*o = append((*o)[:i+1], slices.DeleteFunc((*o)[i+1:], func(m member) bool { return m.key == key })...)
			return nil
		}
	}
	*o = append(*o, member{key, b})
	return nil
}

func (o *object) remove(key string) {
	*o = slices.DeleteFunc(*o, func(m member) bool { return m.key == key })
}

func (o object) encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
