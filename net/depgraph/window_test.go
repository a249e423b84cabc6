package depgraph

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestWindowReceiver: on a graph with the window rule an executed message is a bit, not a
// node; what lies Window or more behind the newest message counts as executed: a copy is
// ignored, a dependency is met, and the bit is cleared as the newest message moves past it,
// without waiting for an expiry. An unexecuted node that the window passes is ErrWindow.
func TestWindowReceiver(t *testing.T) {
	var got []uint16
	g := New(Config{Expiry: time.Hour, Window: true}, func(seq uint16, _ int) { got = append(got, seq) })
	add := func(seq uint16, deps ...uint16) bool {
		t.Helper()
		added, err := g.Add(at(0), seq, deps, 0, true)
		if err != nil {
			t.Fatalf("Add(%d): %v", seq, err)
		}
		return added
	}
	add(0)
	add(5)
	if g.Len() != 0 || !g.Executed(0) || !g.Executed(5) || g.Executed(Window) {
		t.Fatalf("Len %d; executed: 0 %v, 5 %v, %d %v", g.Len(), g.Executed(0), g.Executed(5), Window, g.Executed(Window))
	}
	// A message waits for 7, which has not come: it is a node, with a placeholder.
	add(9, 7)
	if g.Len() != 2 || g.Executed(9) {
		t.Fatalf("Len %d, 9 executed %v: want 9 waiting on a placeholder for 7", g.Len(), g.Executed(9))
	}
	add(7)
	if g.Len() != 0 || !g.Executed(9) {
		t.Fatalf("Len %d, 9 executed %v after 7 came", g.Len(), g.Executed(9))
	}
	// Message Window is ahead of 9: N moves to it, and the bit of 0 (Window behind it) goes;
	// 0 still counts as executed, by the window.
	add(Window)
	if !g.Executed(0) || !g.Executed(5) {
		t.Fatal("0 or 5 no longer counts as executed")
	}
	if st := g.Stats(); st.Forgotten != 1 || st.Expired != 0 {
		t.Fatalf("stats %+v, want one bit forgotten and nothing expired", st)
	}
	// A copy of 0 is ignored; a message that depends on 0 executes at once.
	if add(0) {
		t.Fatal("a copy of message 0, Window behind N, was added")
	}
	add(Window+1, 0)
	if want := []uint16{0, 5, 7, 9, Window, Window + 1}; !slices.Equal(got, want) {
		t.Fatalf("executed %v, want %v", got, want)
	}
	// Across the wrap: 32767 is ahead of Window+1 by less than half the circle, 0 after it is
	// a new message (the bit of the old 0 is long gone) and executes.
	add(SeqMask - 1)
	add(0)
	if got[len(got)-1] != 0 {
		t.Fatalf("message 0 after the wrap did not execute: %v", got)
	}
	if err := g.Expire(at(0)); err != nil {
		t.Fatal(err)
	}

	// A message that waits for a dependency while the window passes it: the peer broke the
	// rule, and the graph says so.
	h := New(Config{Expiry: time.Hour, Window: true}, func(uint16, int) {})
	if _, err := h.Add(at(0), 2, []uint16{1}, 0, true); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Add(at(0), 2+Window, nil, 0, true); err != nil {
		t.Fatal(err)
	}
	if err := h.Expire(at(0)); !errors.Is(err, ErrWindow) {
		t.Fatalf("Expire = %v, want ErrWindow", err)
	}
}

// TestWindowSender: a Sender with the window sends numbers in increasing order, at most Window
// ahead of its oldest message not executed locally, and reuses a number as soon as that allows
// it, long before an expiry; its graph keeps nodes only for the messages not executed yet.
func TestWindowSender(t *testing.T) {
	s := NewWindowSender(time.Hour)
	now := at(0)
	for seq := range uint16(Window) {
		if _, err := s.Send(now, seq, nil, nil, nil); err != nil {
			t.Fatalf("Send(%d): %v", seq, err)
		}
	}
	if s.Free(now, Window) {
		t.Fatal("a number Window ahead of the unexecuted message 0 is free")
	}
	if s.Free(now, 5) {
		t.Fatal("a number behind the latest one sent is free")
	}
	s.Acked(now, 0)
	if !s.Free(now, Window) || s.Free(now, Window+1) {
		t.Fatalf("after 0 executed: Free(Window) %v, Free(Window+1) %v; want true, false", s.Free(now, Window), s.Free(now, Window+1))
	}
	// Run the window round the circle: every message executes as it goes, so number 0 comes
	// back 32,768 messages later, within the same instant.
	for seq := uint16(1); seq < Window; seq++ {
		s.Acked(now, seq)
	}
	for k := 0; k < SeqSpace-Window+1; k++ {
		seq := uint16(Window+k) & SeqMask
		if !s.Free(now, seq) {
			t.Fatalf("number %d not free", seq)
		}
		if _, err := s.Send(now, seq, nil, nil, nil); err != nil {
			t.Fatalf("Send(%d): %v", seq, err)
		}
		s.Acked(now, seq)
	}
	if st := s.Stats().Graph; st.Executed != SeqSpace+1 || st.Expired != 0 || s.Len() != 0 {
		t.Fatalf("graph stats %+v, %d nodes: want %d executions, nothing expired, no node left", st, s.Len(), SeqSpace+1)
	}
}
