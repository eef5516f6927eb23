package graph

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// byIDPages gives every item once, in order, whatever the page size, and
// reads the next page while fn works through the current one; an error from
// fn or from a read stops it, with no read left running.
func TestByIDPages(t *testing.T) {
	var ids []string
	for i := range 8 {
		ids = append(ids, fmt.Sprintf("c%02d", i))
	}
	var running atomic.Int32
	pages := func(size int) func(after string) ([]string, error) {
		return func(after string) ([]string, error) {
			running.Add(1)
			defer running.Add(-1)
			i, _ := slices.BinarySearch(ids, after)
			if i < len(ids) && ids[i] == after {
				i++
			}
			return ids[i:min(i+size, len(ids))], nil
		}
	}
	self := func(s string) string { return s }
	for _, size := range []int{1, 3, 4, 8, 20} {
		t.Run(fmt.Sprintf("page of %d", size), func(t *testing.T) {
			var got []string
			err := byIDPages(size, self, func(s string) error { got = append(got, s); return nil }, pages(size))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, ids) {
				t.Errorf("got %v, want %v", got, ids)
			}
		})
	}
	t.Run("fn fails", func(t *testing.T) {
		boom := errors.New("boom")
		var got []string
		err := byIDPages(3, self, func(s string) error {
			if s == "c01" {
				return boom
			}
			got = append(got, s)
			return nil
		}, pages(3))
		if !errors.Is(err, boom) {
			t.Fatalf("error %v, want %v", err, boom)
		}
		if !slices.Equal(got, ids[:1]) {
			t.Errorf("got %v before the error, want %v", got, ids[:1])
		}
		if n := running.Load(); n != 0 {
			t.Errorf("%d reads still running after it returned", n)
		}
	})
	t.Run("a read fails", func(t *testing.T) {
		boom := errors.New("read failed")
		read := pages(3)
		var got []string
		err := byIDPages(3, self, func(s string) error { got = append(got, s); return nil }, func(after string) ([]string, error) {
			if after == "c02" {
				return nil, boom
			}
			return read(after)
		})
		if !errors.Is(err, boom) {
			t.Fatalf("error %v, want %v", err, boom)
		}
		if !slices.Equal(got, ids[:3]) {
			t.Errorf("got %v before the error, want %v", got, ids[:3])
		}
	})
	t.Run("reads ahead", func(t *testing.T) {
		read := pages(4)
		started := make(chan string, 4)
		var got []string
		err := byIDPages(4, self, func(s string) error {
			if s == "c00" { // the second page's read starts before the first page is worked through
				for _, want := range []string{"", "c03"} {
					select {
					case after := <-started:
						if after != want {
							t.Errorf("read after %q, want after %q", after, want)
						}
					case <-time.After(10 * time.Second):
						t.Fatalf("no read after %q while the first page was worked through", want)
					}
				}
			}
			got = append(got, s)
			return nil
		}, func(after string) ([]string, error) {
			started <- after
			return read(after)
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, ids) {
			t.Errorf("got %v, want %v", got, ids)
		}
	})
}
