package mcpserver

import (
	"fmt"
	"strings"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/internal/view"
)

// The short text renderings beside each tool's structured content: enough
// for a model or a person to read at a glance; the details are in the
// structured content.

func caseLine(c view.CaseSummary) string {
	s := fmt.Sprintf("%s (%s, %s): %s", c.ID, c.Date, c.Org, c.Title.En)
	if c.RootCause != "" {
		s += " [root cause: " + c.RootCause + "]"
	}
	return s
}

func renderPage(p *view.CasePage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d incidents match", p.Total)
	if len(p.Cases) < p.Total {
		fmt.Fprintf(&b, "; %d shown", len(p.Cases))
	}
	b.WriteString(".\n")
	for _, c := range p.Cases {
		b.WriteString("- " + caseLine(c) + "\n")
	}
	if p.NextCursor != "" {
		fmt.Fprintf(&b, "More: call again with cursor %q.\n", p.NextCursor)
	}
	return b.String()
}

func renderCase(c *ilgraph.Case) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s (%s, %s)\n", c.ID, c.Title.En, c.Org, c.Date)
	if c.Summary.En != "" {
		b.WriteString(c.Summary.En + "\n")
	}
	fmt.Fprintf(&b, "Root cause: %s. Components: %s. Symptoms: %s. Contributing: %s. Mechanisms: %s. Domains: %s.\n", orNone(c.RootCause),
		orNone(strings.Join(c.Components, ", ")), orNone(strings.Join(c.Symptoms, ", ")), orNone(strings.Join(c.Contributing, ", ")),
		orNone(strings.Join(c.Mechanisms, ", ")), orNone(strings.Join(c.Domain, ", ")))
	if c.Timeline.ResolvedAfter != "" {
		fmt.Fprintf(&b, "Resolved after %s.\n", c.Timeline.ResolvedAfter)
	}
	if c.Lessons.En != "" {
		b.WriteString("Lessons: " + c.Lessons.En + "\n")
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func renderTopic(t *view.Topic) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s): %d incidents.\n", t.Term.Kind.Label(), t.Term.ID, t.Term.En, t.Term.Cases)
	if t.Term.Description != "" {
		b.WriteString(t.Term.Description + "\n")
	}
	for _, k := range ilgraph.AllKinds {
		tcs := t.Cooccurring[k]
		if len(tcs) == 0 {
			continue
		}
		parts := make([]string, len(tcs))
		for i, tc := range tcs {
			parts[i] = fmt.Sprintf("%s (%d)", tc.ID, tc.Count)
		}
		fmt.Fprintf(&b, "With %s: %s.\n", k, strings.Join(parts, ", "))
	}
	if len(t.Cases) > 0 {
		b.WriteString("Newest incidents:\n")
		for _, c := range t.Cases {
			b.WriteString("- " + caseLine(c) + "\n")
		}
	}
	return b.String()
}

func renderVocab(v *view.Vocabulary) string {
	var b strings.Builder
	for _, k := range ilgraph.AllKinds {
		ts, ok := v.Kinds[k]
		if !ok {
			continue
		}
		ids := make([]string, len(ts))
		for i, t := range ts {
			ids[i] = t.ID
		}
		fmt.Fprintf(&b, "%s (%d): %s\n", k, len(ts), strings.Join(ids, ", "))
	}
	return b.String()
}

func renderMatches(head string, ms []view.Match) string {
	var b strings.Builder
	b.WriteString(head + "\n")
	for _, m := range ms {
		shared := make([]string, len(m.Shared))
		for i, f := range m.Shared {
			shared[i] = string(f.Kind) + ":" + f.ID
			if f.Kind == ilgraph.WeightText && f.Cosine != nil {
				shared[i] = fmt.Sprintf("text (cosine %.2f)", *f.Cosine)
			}
		}
		fmt.Fprintf(&b, "- %.3f %s; shares %s\n", m.Score, caseLine(m.Case), strings.Join(shared, ", "))
	}
	if len(ms) == 0 {
		b.WriteString("(none shares a feature)\n")
	}
	return b.String()
}

func renderProfile(p *view.ProfileMatch) string {
	var b strings.Builder
	b.WriteString(renderMatches(fmt.Sprintf("The %d most similar past incidents:", len(p.Matches)), p.Matches))
	weighted := func(title string, ws []view.WeightedTerm) {
		if len(ws) == 0 {
			return
		}
		parts := make([]string, 0, len(ws))
		for _, w := range ws[:min(len(ws), 8)] {
			parts = append(parts, fmt.Sprintf("%s (%.2f, %d matches)", w.ID, w.Weight, w.Matches))
		}
		fmt.Fprintf(&b, "%s: %s.\n", title, strings.Join(parts, ", "))
	}
	weighted("Root causes to check", p.RootCauses)
	weighted("Contributing factors to check", p.Contributing)
	for _, r := range p.Remedies[:min(len(p.Remedies), 3)] {
		if len(r.Remediation) > 0 {
			fmt.Fprintf(&b, "What resolved %s: %s\n", r.CaseID, r.Remediation[0].En)
		}
	}
	return b.String()
}

func renderCrossRefs(v *view.CrossReferences) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d other incidents have %s's root cause (%s).\n", v.Total, v.CaseID, v.RootCause.ID)
	for _, x := range v.Cases {
		fmt.Fprintf(&b, "- %s — %s\n", caseLine(x.Case), x.Reason)
	}
	if v.NextCursor != "" {
		fmt.Fprintf(&b, "More: call again with cursor %q.\n", v.NextCursor)
	}
	return b.String()
}

func renderDrawing(kind, id string, d *view.Drawing) string {
	count := map[string]int{}
	for _, n := range d.Nodes {
		count[n.Kind]++
	}
	var parts []string
	for _, k := range append([]string{ilgraph.NodeKindCase}, kindStrings()...) {
		if count[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
		}
	}
	s := fmt.Sprintf("Around %s %s: %d nodes (%s), %d relationships.", kind, id, len(d.Nodes), strings.Join(parts, ", "), len(d.Edges))
	if d.Truncated {
		s += " Cut short by the node limit."
	}
	return s + "\n"
}

func kindStrings() []string {
	out := make([]string, len(ilgraph.AllKinds))
	for i, k := range ilgraph.AllKinds {
		out[i] = string(k)
	}
	return out
}

func renderSuggested(s map[ilgraph.Kind][]view.SuggestedTerm) string {
	if len(s) == 0 {
		return ""
	}
	var parts []string
	less := 0
	for _, k := range ilgraph.VocabKinds {
		for _, t := range s[k] {
			if !t.Sure {
				less++
				continue
			}
			parts = append(parts, fmt.Sprintf("%s:%s (%.2f)", k, t.ID, t.Confidence))
		}
	}
	var b strings.Builder
	if len(parts) > 0 {
		b.WriteString("Read from the text, the sure ones (each confidence is how often such a suggestion was right when tested; these kinds' suggestions at these confidences were right at least 80% of the time): " + strings.Join(parts, ", ") + ".\n")
	}
	if less > 0 {
		fmt.Fprintf(&b, "%d less sure %s also counted, each with its confidence (structured result, \"suggested\"); check them before relying on them.\n", less, map[bool]string{true: "term", false: "terms"}[less == 1])
	}
	return b.String()
}

func renderSuggestions(v *view.Suggestions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Terms the text points to (read as %s; a confidence is how often such a suggestion was right when tested, 0.6 about 60%% of the time; \"sure\": this kind's suggestions at this confidence were right at least 80%% of the time):\n", v.Lang)
	for _, k := range ilgraph.VocabKinds {
		ts := v.Terms[k]
		if len(ts) == 0 {
			continue
		}
		parts := make([]string, len(ts))
		for i, t := range ts {
			parts[i] = fmt.Sprintf("%s (%.2f)", t.ID, t.Confidence)
			if t.Sure {
				parts[i] = fmt.Sprintf("%s (%.2f, sure)", t.ID, t.Confidence)
			}
		}
		fmt.Fprintf(&b, "- %s: %s\n", k, strings.Join(parts, ", "))
	}
	return b.String()
}

func renderWarnings(ws []view.Warning) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "Note: %s: %s.\n", w.Field, w.Message)
	}
	return b.String()
}
