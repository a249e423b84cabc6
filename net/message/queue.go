package message

// ring is a FIFO queue on a circular buffer that grows by doubling and never shrinks, so a
// connection in steady state queues and dequeues without allocating.
type ring[T any] struct {
	buf  []T
	head int
	n    int
}

func (q *ring[T]) len() int { return q.n }

func (q *ring[T]) push(v T) {
	if q.n == len(q.buf) {
		nb := make([]T, max(16, 2*len(q.buf)))
		for i := range q.n {
			nb[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = v
	q.n++
}

// front is the oldest element; the queue must not be empty.
func (q *ring[T]) front() T { return q.buf[q.head] }

func (q *ring[T]) pop() T {
	var zero T
	v := q.buf[q.head]
	q.buf[q.head] = zero // drop the reference for the garbage collector
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return v
}

// msgQueue holds guaranteed messages not yet fully sent, in the order they were queued.
type msgQueue = ring[*outMsg]

// unitQueue holds references to sent units in the order of their last send.
type unitQueue = ring[unitRef]
