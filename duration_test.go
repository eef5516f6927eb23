package ilgraph

import "testing"

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{"17h 8m", 17*60 + 8, false},
		{"45m", 45, false},
		{"2d 3h", 2*1440 + 180, false},
		{"1h", 60, false},
		{"90s", 1, false},
		{"1d 0h 5m 30s", 1445, false},
		{"", 0, true},
		{"17 hours", 0, true},
		{"5m 2h", 0, true},
		{"2h 2h", 0, true},
		{"-3m", 0, true},
		{"h", 0, true},
		{"400d", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && tt.want > 0 {
			back, err := ParseDuration(FormatDuration(got))
			if err != nil || back != got {
				t.Errorf("FormatDuration(%d) = %q does not parse back (%d, %v)", got, FormatDuration(got), back, err)
			}
		}
	}
}
