package strutil

import "testing"

func TestReverse(t *testing.T) {
	if Reverse("ab") != "ba" {
		t.Fatal("Reverse")
	}
}
