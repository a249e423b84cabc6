package game

import (
	"errors"
	"testing"
	"time"

	"github.com/ackattack/ackattack/net/message"
)

// TestOutboxWaitsThenRefuses: a message the connection cannot take yet (every sequence number
// may still be in flight) waits in the outbox, behind the ones before it; once maxOutbox wait,
// the next is refused with ErrOutboxFull, to the caller, and the queue stays bounded.
func TestOutboxWaitsThenRefuses(t *testing.T) {
	c := message.New(message.Config{}, func(*message.Message) {})
	now := time.Unix(1_000_000, 0)
	var o outbox
	sent := 0
	for ; o.waiting() == 0; sent++ {
		if err := o.send(c, now, []byte{byte(sent)}, Guaranteed, nil, nil); err != nil {
			t.Fatalf("message %d: %v", sent, err)
		}
		if sent > 1<<16 {
			t.Fatal("the connection never pushed back")
		}
	}
	t.Logf("the connection took %d messages before pushing back", sent-1)
	for o.waiting() < maxOutbox {
		if err := o.send(c, now, []byte{1}, Guaranteed, nil, nil); err != nil {
			t.Fatalf("with %d waiting: %v", o.waiting(), err)
		}
	}
	err := o.send(c, now, []byte{2}, Guaranteed, nil, nil)
	if !errors.Is(err, ErrOutboxFull) || o.waiting() != maxOutbox {
		t.Fatalf("the send past the bound: %v, %d waiting", err, o.waiting())
	}
	// Nothing was acknowledged: the connection still takes nothing, and nothing is lost.
	o.flush(c, now)
	if o.waiting() != maxOutbox {
		t.Errorf("after a flush without acks %d wait, want %d", o.waiting(), maxOutbox)
	}
}
