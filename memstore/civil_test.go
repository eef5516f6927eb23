package memstore

import (
	"testing"
	"time"
)

func TestCivilMatchesTime(t *testing.T) {
	for days := int32(-800000); days < 800000; days += 37 {
		y, m, d := civil(days)
		want := time.Unix(int64(days)*86400, 0).UTC()
		if int(y) != want.Year() || time.Month(m) != want.Month() || int(d) != want.Day() {
			t.Fatalf("civil(%d) = %d-%d-%d, want %s", days, y, m, d, want.Format("2006-01-02"))
		}
	}
}
