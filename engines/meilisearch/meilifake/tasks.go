package meilifake

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/searchbench/searchbench/engines/enginetest/fakekit"
)

// Task statuses, as Meilisearch names them.
const (
	statusEnqueued   = "enqueued"
	statusProcessing = "processing"
	statusSucceeded  = "succeeded"
	statusFailed     = "failed"
	statusCanceled   = "canceled"
)

var taskStatuses = []string{statusEnqueued, statusProcessing, statusSucceeded, statusFailed, statusCanceled}

// task is one asynchronous operation.
type task struct {
	UID        int64
	BatchUID   *int64
	IndexUID   string
	Status     string
	Type       string
	Details    map[string]any
	Error      *apiError
	EnqueuedAt time.Time
	StartedAt  time.Time
	FinishedAt time.Time
	// apply runs under s.mu when the task is processed; it returns the final
	// details, or an error that fails the task with nothing changed.
	apply func() (map[string]any, *apiError)
}

func timeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// view is GET /tasks/{uid}'s body.
func (t *task) view() map[string]any {
	var duration any
	if !t.FinishedAt.IsZero() {
		duration = fmt.Sprintf("PT%.6fS", t.FinishedAt.Sub(t.StartedAt).Seconds())
	}
	var e any
	if t.Error != nil {
		e = t.Error
	}
	return map[string]any{
		"uid": t.UID, "batchUid": t.BatchUID, "indexUid": t.IndexUID, "status": t.Status, "type": t.Type,
		"canceledBy": nil, "details": t.Details, "error": e, "duration": duration,
		"enqueuedAt": timeOrNil(t.EnqueuedAt), "startedAt": timeOrNil(t.StartedAt), "finishedAt": timeOrNil(t.FinishedAt),
	}
}

// enqueue records a task and answers 202 with its summary, as every
// Meilisearch write does.
func (s *Server) enqueue(w http.ResponseWriter, indexUID, typ string, details map[string]any, apply func() (map[string]any, *apiError)) {
	s.mu.Lock()
	t := &task{
		UID: int64(len(s.tasks)), IndexUID: indexUID, Status: statusEnqueued, Type: typ,
		Details: details, EnqueuedAt: time.Now(), apply: apply,
	}
	s.tasks = append(s.tasks, t)
	s.wake.Broadcast()
	s.mu.Unlock()
	fakekit.WriteJSON(w, http.StatusAccepted, map[string]any{
		"taskUid": t.UID, "indexUid": indexUID, "status": statusEnqueued, "type": typ, "enqueuedAt": timeOrNil(t.EnqueuedAt),
	})
}

// schedule processes the queue: every enqueued task at once as a batch,
// processing for TaskDelay, then applied in uid order.
func (s *Server) schedule() {
	defer s.scheduler.Done()
	next := 0 // every task before it has been taken
	for {
		s.mu.Lock()
		for !s.closed && (s.paused || next == len(s.tasks)) {
			s.wake.Wait()
		}
		if s.closed {
			s.mu.Unlock()
			return
		}
		batch := s.tasks[next:]
		next = len(s.tasks)
		uid := s.batches
		s.batches++
		now := time.Now()
		for _, t := range batch {
			t.Status, t.StartedAt, t.BatchUID = statusProcessing, now, &uid
		}
		s.mu.Unlock()

		time.Sleep(s.opts.TaskDelay)

		s.mu.Lock()
		for _, t := range batch {
			s.finish(t)
		}
		s.mu.Unlock()
	}
}

// finish applies a task, or fails it as FailTasks asked. Called with s.mu
// held.
func (s *Server) finish(t *task) {
	var details map[string]any
	var err *apiError
	if len(s.failNext) > 0 {
		err, s.failNext = s.failNext[0], s.failNext[1:]
	} else {
		details, err = t.apply()
	}
	t.FinishedAt = time.Now()
	if err != nil {
		t.Status, t.Error = statusFailed, err
		return
	}
	t.Status = statusSucceeded
	if details != nil {
		t.Details = details
	}
}

func (s *Server) getTask(w http.ResponseWriter, r *http.Request) {
	raw := r.PathValue("uid")
	uid, err := strconv.ParseUint(raw, 10, 32)
	if err != nil {
		writeError(w, newError("invalid_task_uids", fmt.Sprintf("Invalid value in parameter `taskUid`: could not parse `%s` as a positive integer", raw)))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if uid >= uint64(len(s.tasks)) {
		writeError(w, newError("task_not_found", fmt.Sprintf("Task `%d` not found.", uid)))
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, s.tasks[uid].view())
}

// taskParams are GET /tasks's query parameters; modelled ones (those the
// driver's client sends) are handled, the others answered as not modelled.
var (
	taskParamsModelled = []string{"statuses", "indexUids", "limit", "from"}
	taskParamsKnown    = append(slices.Clone(taskParamsModelled), "uids", "types", "reverse", "batchUids", "canceledBy",
		"beforeEnqueuedAt", "afterEnqueuedAt", "beforeStartedAt", "afterStartedAt", "beforeFinishedAt", "afterFinishedAt")
)

// taskFilter is a parsed GET /tasks query.
type taskFilter struct {
	statuses, indexUIDs []string
	limit, from         int64 // from -1: none
}

func parseTaskFilter(r *http.Request) (taskFilter, *apiError) {
	f := taskFilter{limit: 20, from: -1}
	q := r.URL.Query()
	if e := checkParams(q, "tasks", taskParamsKnown, taskParamsModelled); e != nil {
		return f, e
	}
	if v := q.Get("statuses"); v != "" && v != "*" {
		f.statuses = strings.Split(v, ",")
	}
	if v := q.Get("indexUids"); v != "" && v != "*" {
		f.indexUIDs = strings.Split(v, ",")
	}
	for _, st := range f.statuses {
		if !slices.Contains(taskStatuses, st) {
			return f, newError("invalid_task_statuses", fmt.Sprintf("Invalid value in parameter `statuses`: `%s` is not a valid task status. Available statuses are %s.", st, quoteList(taskStatuses)))
		}
	}
	for name, dst := range map[string]*int64{"limit": &f.limit, "from": &f.from} {
		if v := q.Get(name); v != "" {
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return f, newError("invalid_task_"+name, fmt.Sprintf("Invalid value in parameter `%s`: could not parse `%s` as a positive integer", name, v))
			}
			*dst = int64(n)
		}
	}
	return f, nil
}

func (f taskFilter) match(t *task) bool {
	return (f.statuses == nil || slices.Contains(f.statuses, t.Status)) &&
		(f.indexUIDs == nil || slices.Contains(f.indexUIDs, t.IndexUID))
}

// listTasks answers GET /tasks: newest first, starting at uid from; total
// counts every match, ignoring from and limit.
func (s *Server) listTasks(w http.ResponseWriter, r *http.Request) {
	f, e := parseTaskFilter(r)
	if failed(w, e) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var matched []*task
	for _, t := range s.tasks {
		if f.match(t) {
			matched = append(matched, t)
		}
	}
	slices.Reverse(matched)
	total := len(matched)
	if f.from >= 0 {
		matched = slices.DeleteFunc(matched, func(t *task) bool { return t.UID > f.from })
	}
	var next any
	if int64(len(matched)) > f.limit {
		next = matched[f.limit].UID
		matched = matched[:f.limit]
	}
	results := make([]map[string]any, len(matched))
	var from any
	for i, t := range matched {
		results[i] = t.view()
		if i == 0 {
			from = t.UID
		}
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"results": results, "total": total, "limit": f.limit, "from": from, "next": next})
}
