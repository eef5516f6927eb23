package graph

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/ilgraph/ilgraph"
)

func nodeOf(n dbtype.Node) ilgraph.Node {
	for _, m := range kinds {
		for _, l := range n.Labels {
			if l == m.Label {
				id := prop[string](n, "id")
				label := prop[string](n, "en")
				if m.Kind == ilgraph.KindOrg {
					label = prop[string](n, "name")
				}
				return ilgraph.Node{Key: string(m.Kind) + ":" + id, Kind: string(m.Kind), ID: id, Label: label}
			}
		}
	}
	id := prop[string](n, "id")
	return ilgraph.Node{Key: ilgraph.NodeKindCase + ":" + id, Kind: ilgraph.NodeKindCase, ID: id, Label: prop[string](n, "title_en")}
}

// startClause matches the start node of an exploration, bound to s.
func startClause(kind, id string) (string, error) {
	if kind == ilgraph.NodeKindCase {
		return "MATCH (s:Case {id: $id})", nil
	}
	m, err := modelOf(ilgraph.Kind(kind))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("MATCH (s:%s {id: $id})", m.Label), nil
}

// allRels lists every relationship type of the model, for path patterns.
func allRels(withCaseLinks bool) string {
	var rels []string
	for _, m := range kinds {
		rels = append(rels, m.Rel)
	}
	if withCaseLinks {
		rels = append(rels, RelRelated, RelRecurrence)
	}
	return strings.Join(rels, "|")
}

// Neighbourhood returns the nodes within depth hops (1 to 4) of a case or
// term, and every model relationship among them: a breadth-first walk, one
// query per hop, that stops at limit nodes (Truncated is then set). It
// returns ENOTFOUND when the start node does not exist.
func (db *DB) Neighbourhood(ctx context.Context, kind, id string, depth, limit int) (*ilgraph.Drawing, error) {
	start, err := startClause(kind, id)
	if err != nil {
		return nil, err
	}
	if depth < 1 || depth > 4 {
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldNeighbourhoodDepth, "must be from 1 to 4, not %d", depth)
	}
	if limit < 1 || limit > ilgraph.MaxDrawingNodes {
		return nil, ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldNeighbourhoodNodes, "must be from 1 to %d, not %d", ilgraph.MaxDrawingNodes, limit)
	}
	rels := allRels(true)
	hop := fmt.Sprintf(`UNWIND $frontier AS eid
MATCH (x) WHERE elementId(x) = eid
MATCH (x)-[:%s]-(y)
WHERE NOT elementId(y) IN $seen
RETURN DISTINCT elementId(y) AS eid, y LIMIT $room`, rels)
	edges := fmt.Sprintf(`UNWIND $seen AS eid
MATCH (a) WHERE elementId(a) = eid
MATCH (a)-[r:%s]->(b) WHERE elementId(b) IN $seen
RETURN elementId(a) AS a, type(r) AS type, elementId(b) AS b`, rels)
	return read(ctx, db, "exploring a neighbourhood", func(tx neo4j.ManagedTransaction) (*ilgraph.Drawing, error) {
		recs, err := collect(ctx, tx, start+" RETURN elementId(s) AS eid, s", map[string]any{"id": id})
		if err != nil {
			return nil, err
		}
		if len(recs) == 0 {
			return nil, ilgraph.Errorf(ilgraph.ENOTFOUND, "no %s with id %q", kind, id)
		}
		d := &ilgraph.Drawing{}
		keys := map[string]string{} // elementId -> node key
		var seen []string
		addNode := func(r *neo4j.Record, key string) string {
			n, _, _ := neo4j.GetRecordValue[dbtype.Node](r, key)
			eid := str(r, "eid")
			node := nodeOf(n)
			d.Nodes = append(d.Nodes, node)
			keys[eid] = node.Key
			seen = append(seen, eid)
			return eid
		}
		frontier := []string{addNode(recs[0], "s")}
		for h := 1; h <= depth && len(frontier) > 0 && !d.Truncated; h++ {
			room := limit - len(seen)
			if room <= 0 {
				d.Truncated = true
				break
			}
			recs, err := collect(ctx, tx, hop, map[string]any{"frontier": frontier, "seen": seen, "room": int64(room + 1)})
			if err != nil {
				return nil, err
			}
			if len(recs) > room {
				recs, d.Truncated = recs[:room], true
			}
			frontier = frontier[:0]
			for _, r := range recs {
				frontier = append(frontier, addNode(r, "y"))
			}
		}
		recs, err = collect(ctx, tx, edges, map[string]any{"seen": seen})
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			d.Edges = append(d.Edges, ilgraph.Edge{Source: keys[str(r, "a")], Target: keys[str(r, "b")], Type: str(r, "type")})
		}
		d.Sort()
		return d, nil
	})
}

// Cooccurrence builds the co-occurrence graph between the terms of two
// kinds over the cases q.Filter selects: an edge for every pair (a of kind
// From, b of kind To) that at least q.MinCount selected cases have
// together, with that count, and its lift and support measured over q.Base
// (the selection when nil; see ilgraph.CooccurrenceQuery). Pairs whose
// support is below q.MinSupport are left out. Nodes count selected cases.
// One read transaction.
func (db *DB) Cooccurrence(ctx context.Context, q ilgraph.CooccurrenceQuery) (*ilgraph.Drawing, error) {
	from, to := q.From, q.To
	mf, err := modelOf(from)
	if err != nil {
		return nil, err
	}
	mt, err := modelOf(to)
	if err != nil {
		return nil, err
	}
	mc, err := compileFilter(q.Filter)
	if err != nil {
		return nil, err
	}
	base := mc
	if q.Base != nil {
		if base, err = compileFilter(*q.Base); err != nil {
			return nil, err
		}
	}
	same := ""
	if from == to {
		same = "WHERE a.id < b.id\n"
	}
	pairs := func(m matchClause, only string) string {
		return fmt.Sprintf(`%sMATCH (a:%s)<-[:%s]-(n)-[:%s]->(b:%s)
%s%sRETURN a.id AS a, b.id AS b, count(DISTINCT n) AS c`, m.text, mf.Label, mf.Rel, mt.Rel, mt.Label, same, only)
	}
	singles := func(m matchClause) string {
		return fmt.Sprintf(`%sMATCH (n)-[r:%s|%s]->(t)
WHERE (type(r) = $fromRel AND t:%s) OR (type(r) = $toRel AND t:%s)
RETURN type(r) AS rel, t.id AS id, coalesce(t.en, t.name) AS label, count(DISTINCT n) AS c`, m.text, mf.Rel, mt.Rel, mf.Label, mt.Label)
	}
	rels := map[string]any{"fromRel": mf.Rel, "toRel": mt.Rel}
	type population struct {
		total  int
		counts map[string]int // term key -> cases
		labels map[string]string
		pairs  map[[2]string]int // node keys -> cases with both
	}
	key := func(k ilgraph.Kind, id string) string { return string(k) + ":" + id }
	// count reads a population's size and term counts, and its pairs
	// (only those among as × bs when given).
	count := func(tx neo4j.ManagedTransaction, m matchClause, as, bs []string) (*population, error) {
		p := &population{counts: map[string]int{}, labels: map[string]string{}, pairs: map[[2]string]int{}}
		recs, err := collect(ctx, tx, m.text+"RETURN count(n) AS total", m.params)
		if err != nil {
			return nil, err
		}
		if len(recs) == 1 {
			p.total = int(integer(recs[0], "total"))
		}
		recs, err = collect(ctx, tx, singles(m), with(m.params, rels))
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			kind := from
			if str(r, "rel") == mt.Rel {
				kind = to
			}
			k := key(kind, str(r, "id"))
			p.counts[k] = int(integer(r, "c"))
			p.labels[k] = str(r, "label")
		}
		only, params := "", m.params
		if as != nil {
			only, params = "WITH a, b, n WHERE a.id IN $pairA AND b.id IN $pairB\n", with(m.params, map[string]any{"pairA": as, "pairB": bs})
		}
		recs, err = collect(ctx, tx, pairs(m, only), params)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			p.pairs[[2]string{key(from, str(r, "a")), key(to, str(r, "b"))}] = int(integer(r, "c"))
		}
		return p, nil
	}
	return read(ctx, db, "building a co-occurrence graph", func(tx neo4j.ManagedTransaction) (*ilgraph.Drawing, error) {
		sel, err := count(tx, mc, nil, nil)
		if err != nil {
			return nil, err
		}
		lifted := sel
		if q.Base != nil {
			// Only the pairs the selection draws need a base count.
			as, bs := map[string]bool{}, map[string]bool{}
			for p, c := range sel.pairs {
				if c >= q.MinCount {
					_, a, _ := strings.Cut(p[0], ":")
					_, b, _ := strings.Cut(p[1], ":")
					as[a], bs[b] = true, true
				}
			}
			if lifted, err = count(tx, base, keys(as), keys(bs)); err != nil {
				return nil, err
			}
		}
		d := &ilgraph.Drawing{}
		used := map[string]bool{}
		for p, c := range sel.pairs {
			support := lifted.pairs[p]
			if c < q.MinCount || support < max(q.MinSupport, 1) {
				continue
			}
			lift := float64(support) * float64(lifted.total) / (float64(lifted.counts[p[0]]) * float64(lifted.counts[p[1]]))
			d.Edges = append(d.Edges, ilgraph.Edge{Source: p[0], Target: p[1], Type: ilgraph.EdgeCooccurs, Count: c, Support: support, Lift: lift})
			used[p[0]], used[p[1]] = true, true
		}
		for k := range used {
			kind, id, _ := strings.Cut(k, ":")
			d.Nodes = append(d.Nodes, ilgraph.Node{Key: k, Kind: kind, ID: id, Label: sel.labels[k], Count: sel.counts[k]})
		}
		if len(d.Nodes) > ilgraph.MaxDrawingNodes {
			return nil, ilgraph.Errorf(ilgraph.ELIMIT, "the co-occurrence graph has %d nodes, more than %d: narrow the filter or raise minCount", len(d.Nodes), ilgraph.MaxDrawingNodes)
		}
		d.Sort()
		return d, nil
	})
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Connections returns the shortest paths between two cases through shared
// features (case–term–case…), at most limit of them, each at most maxHops
// relationships long (2 to 8). Paths through related/recurrence links are
// not counted: they are not shared features.
func (db *DB) Connections(ctx context.Context, from, to string, maxHops, limit int) ([]ilgraph.Path, error) {
	if maxHops < 2 || maxHops > 8 {
		return nil, ilgraph.FieldErrorf(ilgraph.EINVALID, ilgraph.FieldConnectionHops, "must be from 2 to 8, not %d", maxHops)
	}
	if limit < 1 || limit > 100 {
		return nil, ilgraph.FieldErrorf(ilgraph.ELIMIT, ilgraph.FieldConnectionCount, "must be from 1 to 100, not %d", limit)
	}
	if from == to {
		return nil, ilgraph.Errorf(ilgraph.EINVALID, "from and to are the same case")
	}
	q := fmt.Sprintf(`MATCH (a:Case {id: $from}), (b:Case {id: $to})
MATCH p = allShortestPaths((a)-[:%s*..%d]-(b))
WITH p LIMIT $limit
RETURN nodes(p) AS ns, [r IN relationships(p) | [type(r), startNode(r) = nodes(p)[0]]] AS rs`, allRels(false), maxHops)
	return read(ctx, db, "finding connections", func(tx neo4j.ManagedTransaction) ([]ilgraph.Path, error) {
		recs, err := collect(ctx, tx, "MATCH (n:Case) WHERE n.id IN [$from, $to] RETURN n.id AS id", map[string]any{"from": from, "to": to})
		if err != nil {
			return nil, err
		}
		if len(recs) < 2 {
			return nil, ilgraph.Errorf(ilgraph.ENOTFOUND, "no case with id %q or %q", from, to)
		}
		recs, err = collect(ctx, tx, q, map[string]any{"from": from, "to": to, "limit": int64(limit)})
		if err != nil {
			return nil, err
		}
		var out []ilgraph.Path
		for _, r := range recs {
			p, err := recordPath(r)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		sort.Slice(out, func(i, j int) bool { return pathKey(out[i]) < pathKey(out[j]) })
		return out, nil
	})
}

// recordPath reads a path's nodes and relationship types, checking every
// value's type: a shape this code does not expect is an internal error, not
// a panic.
func recordPath(r *neo4j.Record) (ilgraph.Path, error) {
	var p ilgraph.Path
	bad := func(what string) (ilgraph.Path, error) {
		return ilgraph.Path{}, ilgraph.Errorf(ilgraph.EINTERNAL, "reading a connection: unexpected %s", what)
	}
	nsRaw, _ := r.Get("ns")
	ns, ok := nsRaw.([]any)
	if !ok {
		return bad("node list")
	}
	for _, x := range ns {
		n, ok := x.(dbtype.Node)
		if !ok {
			return bad("node")
		}
		p.Nodes = append(p.Nodes, nodeOf(n))
	}
	rsRaw, _ := r.Get("rs")
	rs, ok := rsRaw.([]any)
	if !ok || len(rs) != len(p.Nodes)-1 {
		return bad("relationship list")
	}
	for i, x := range rs {
		pair, ok := x.([]any)
		if !ok || len(pair) == 0 {
			return bad("relationship")
		}
		typ, ok := pair[0].(string)
		if !ok {
			return bad("relationship type")
		}
		// Relationships always point from a case to a term.
		a, b := p.Nodes[i], p.Nodes[i+1]
		if a.Kind != ilgraph.NodeKindCase {
			a, b = b, a
		}
		p.Edges = append(p.Edges, ilgraph.Edge{Source: a.Key, Target: b.Key, Type: typ})
	}
	return p, nil
}

func pathKey(p ilgraph.Path) string {
	keys := make([]string, len(p.Nodes))
	for i, n := range p.Nodes {
		keys[i] = n.Key
	}
	return strings.Join(keys, ">")
}
