package ilgraph

import "testing"

func TestBilingualAndReviewed(t *testing.T) {
	both := Text{En: "x", Ko: "엑스"}
	full := func() *Case {
		return &Case{Title: both, Summary: both, Trigger: both, Lessons: both,
			Remediation: []Item{{Text: both}}, ActionItems: []Item{{Text: both}}}
	}
	tests := []struct {
		name   string
		change func(c *Case)
		want   bool
	}{
		{"every text in both languages", func(*Case) {}, true},
		{"a block absent in both languages", func(c *Case) { c.Detection = Text{} }, true},
		{"lessons in English only", func(c *Case) { c.Lessons.Ko = " " }, false},
		{"an action item in English only", func(c *Case) { c.ActionItems = append(c.ActionItems, Item{Text: Text{En: "y"}}) }, false},
		{"a remediation step in English only", func(c *Case) { c.Remediation[0].Text.Ko = "" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := full()
			tt.change(c)
			if got := c.Bilingual(); got != tt.want {
				t.Errorf("Bilingual() = %v, want %v", got, tt.want)
			}
		})
	}
	c := full()
	if c.Reviewed() {
		t.Error("a case without review.reviewed_at counts as reviewed")
	}
	c.Review.ReviewedAt = "2026-11-30T10:00:00Z"
	if !c.Reviewed() {
		t.Error("a case with review.reviewed_at does not count as reviewed")
	}
}
