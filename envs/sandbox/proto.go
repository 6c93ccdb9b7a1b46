package sandbox

import "github.com/artist-rl/artist/internal/workerpool"

// The parent and a worker speak the protocol of package
// internal/workerpool: a hello, a ready, then requests and replies, as
// frames of package internal/frame, which carry printed bytes exactly
// (invalid UTF-8 included).

// hello configures a worker; it is the first frame the parent sends.
type hello = workerpool.Hello

// ready is the worker's answer to hello: empty once its limits are set.
type ready = workerpool.Ready

// request asks a worker to run code in a fresh interpreter (session 0) or
// a session's.
type request = workerpool.Request

// reply is the outcome of one request.
type reply = workerpool.Reply
