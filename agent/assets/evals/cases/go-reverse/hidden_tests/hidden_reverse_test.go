package strutil

import "testing"

func TestHiddenReverse(t *testing.T) {
	cases := map[string]string{"": "", "a": "a", "héllo": "olléh", "日本語": "語本日"}
	for in, want := range cases {
		if got := Reverse(in); got != want {
			t.Errorf("Reverse(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHiddenReverseWords(t *testing.T) {
	cases := map[string]string{"  the quick  fox ": "fox quick the", "": "", "one": "one"}
	for in, want := range cases {
		if got := ReverseWords(in); got != want {
			t.Errorf("ReverseWords(%q) = %q, want %q", in, got, want)
		}
	}
}
