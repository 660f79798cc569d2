// Package taskqueue runs jobs on a fixed pool of workers, with retries, deadlines
// and a small in-memory LRU of recent results. Written for chunkwise's tests as
// realistic Go: methods on pointer receivers, interfaces, generics, closures,
// struct tags, goroutines and select.
package taskqueue

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// ErrClosed is returned by Submit after Close.
var ErrClosed = errors.New("taskqueue: queue closed")

// Priority orders jobs: higher runs first.
type Priority int

const (
	Low Priority = iota
	Normal
	High // 优先级最高：先运行 🚀
)

// String names a priority for logs.
func (p Priority) String() string {
	switch p {
	case Low:
		return "low"
	case Normal:
		return "normal"
	case High:
		return "high"
	default:
		return fmt.Sprintf("priority(%d)", int(p))
	}
}

// Job is one unit of work.
type Job struct {
	ID       string        `json:"id"`
	Priority Priority      `json:"priority"`
	Timeout  time.Duration `json:"timeout,omitempty"`
	Attempts int           `json:"attempts"`
	Run      func(ctx context.Context) (string, error) `json:"-"`
}

// Result is what a job left behind.
type Result struct {
	JobID    string
	Output   string
	Err      error
	Finished time.Time
}

// Store keeps results somewhere.
type Store interface {
	Put(r Result)
	Get(id string) (Result, bool)
	Len() int
}

// lru is a Store that forgets the least recently used result past its capacity.
type lru struct {
	mu       sync.Mutex
	capacity int
	order    *list.List
	items    map[string]*list.Element
}

// NewLRU makes a Store holding at most capacity results.
func NewLRU(capacity int) Store {
	if capacity <= 0 {
		capacity = 1
	}
	return &lru{capacity: capacity, order: list.New(), items: make(map[string]*list.Element)}
}

func (c *lru) Put(r Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[r.JobID]; ok {
		e.Value = r
		c.order.MoveToFront(e)
		return
	}
	c.items[r.JobID] = c.order.PushFront(r)
	for c.order.Len() > c.capacity {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(Result).JobID)
	}
}

func (c *lru) Get(id string) (Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[id]
	if !ok {
		return Result{}, false
	}
	c.order.MoveToFront(e)
	return e.Value.(Result), true
}

func (c *lru) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Queue is a pool of workers fed by a priority-ordered backlog.
type Queue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	backlog []*Job
	closed  bool
	store   Store
	wg      sync.WaitGroup
	// retryDelay grows linearly with the attempt number.
	retryDelay time.Duration
}

// New starts workers goroutines that take jobs until Close.
func New(workers int, store Store) *Queue {
	q := &Queue{store: store, retryDelay: 10 * time.Millisecond}
	q.cond = sync.NewCond(&q.mu)
	for i := 0; i < workers; i++ {
		q.wg.Add(1)
		go q.worker(i)
	}
	return q
}

// Submit adds a job to the backlog.
func (q *Queue) Submit(j *Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	q.backlog = append(q.backlog, j)
	// Stable: jobs of one priority run in the order they came.
	sort.SliceStable(q.backlog, func(a, b int) bool {
		return q.backlog[a].Priority > q.backlog[b].Priority
	})
	q.cond.Signal()
	return nil
}

// Close stops taking jobs and waits for the workers to finish the backlog.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
	q.wg.Wait()
}

func (q *Queue) next() (*Job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.backlog) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.backlog) == 0 {
		return nil, false
	}
	j := q.backlog[0]
	q.backlog = q.backlog[1:]
	return j, true
}

func (q *Queue) worker(n int) {
	defer q.wg.Done()
	for {
		j, ok := q.next()
		if !ok {
			return
		}
		q.store.Put(q.runWithRetries(j))
	}
}

// runWithRetries runs a job until it succeeds or its attempts run out.
func (q *Queue) runWithRetries(j *Job) Result {
	attempts := j.Attempts
	if attempts < 1 {
		attempts = 1
	}
	var lastErr error
	for a := 1; a <= attempts; a++ {
		out, err := runOnce(j)
		if err == nil {
			return Result{JobID: j.ID, Output: out, Finished: time.Now()}
		}
		lastErr = err
		time.Sleep(time.Duration(a) * q.retryDelay)
	}
	return Result{JobID: j.ID, Err: fmt.Errorf("job %s: %w", j.ID, lastErr), Finished: time.Now()}
}

func runOnce(j *Job) (string, error) {
	ctx := context.Background()
	if j.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, j.Timeout)
		defer cancel()
	}
	done := make(chan struct{})
	var out string
	var err error
	go func() {
		defer close(done)
		out, err = j.Run(ctx)
	}()
	select {
	case <-done:
		return out, err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Map applies f to every element: a small generic helper.
func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// Summary describes a set of results, one line each, failures first.
func Summary(results []Result) string {
	sorted := append([]Result(nil), results...)
	sort.Slice(sorted, func(a, b int) bool {
		if (sorted[a].Err != nil) != (sorted[b].Err != nil) {
			return sorted[a].Err != nil
		}
		return sorted[a].JobID < sorted[b].JobID
	})
	lines := Map(sorted, func(r Result) string {
		if r.Err != nil {
			return "FAIL " + r.JobID + ": " + r.Err.Error()
		}
		return "ok   " + r.JobID + " -> " + r.Output
	})
	return strings.Join(lines, "\n")
}
