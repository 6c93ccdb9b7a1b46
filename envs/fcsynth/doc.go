// Package fcsynth is a function-calling task family that a small policy
// can learn: short generated conversations (one to three user turns) over
// the BFCL v3 API ports of package bfcl, each offering a few functions and
// asking for one call per turn whose argument values are written in the
// user's words ("Fill the tank with 12 gallons." ->
// fillFuelTank(fuelAmount=12)).
//
// The ground truth is made with the conversation and kept only when its
// replay on fresh instances returns no error. Conversations are
// bfcl.Entry values of Category, held in memory by bfcl.Data.WithEntries,
// so the BFCL session tool runs their calls, the official checker port
// (bfcl.Check) decides accuracy, and the function-calling rewards
// (fc_state, fc_function, fc_format) replay them exactly as they do
// benchmark entries. The held-out split is drawn from its own seed and
// the training pool never holds a held-out conversation (Key).
//
// Prompts list the functions from BFCL's documentation
// (multi_turn_func_doc of the data folder) in the layout of bfcl.Tasks,
// so a policy trained here reads real BFCL prompts the same way, and the
// bfcl chat adapter serves both.
package fcsynth
