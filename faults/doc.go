// Package faults describes the faults of a run and draws them from its
// seed: the crash plan (FaultPlan: how many crashes, their spacing,
// downtimes and victims; its Schedule, the same in every runtime), how a
// targeted crash chooses its victim (Targets, IsTarget, ChooseVictim), and
// the transient faults of a self-stabilizing algorithm (TransientPlan:
// arbitrary or adversarial initial configurations, corruption events, and
// the Edits that change a configuration). It says what happens and when;
// the runtimes make it happen (bench's controller, the MPI ranks).
package faults
