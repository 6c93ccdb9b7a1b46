// Package atomicfile replaces files so that readers and crashes see either the
// old content or the new content, never a mix.
//
// A write goes to a temporary file in the target's folder, is flushed and
// fsynced, closed, renamed over the target, and the folder is fsynced so the
// rename itself survives a crash. On any error the target is left as it was
// and the temporary file is removed.
package atomicfile
