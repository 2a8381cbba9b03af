#pragma once

#include "app/common/result.h"
#include "app/lab/lab_mode.h"
#include "app/lab/lab_server.h"
#include "app/session/session.h"

#include <vector>

namespace loadscope::app::lab {

// What a user picks to add lab targets: one server for the lab, the modes to compare it in,
// and the wire's MTU.
struct LabTargetChoice {
    LabServerKind server = LabServerKind::Http;
    std::vector<LabMode> modes; // in the order the targets are added; repeats count once
    int mtu = 1500;
    LabClientPlacement client = LabClientPlacement::Wire; // the lab's, as the MTU
};

// The targets to add (one per mode, in the order chosen), the session's lab afterwards, and
// its plan, which takes a CPU profile of every point from then on (a lab's points are where
// one explains a mode's cost; where the machine refuses it, each point says why).
struct LabTargetsEdit {
    std::vector<Target> targets;
    LabSetup lab;
    SweepPlan plan;
};

// The protocol a lab server speaks: http for http, nginx and apache; memcache for memcached;
// tcp-rr for echo; tcp-stream for sink; udp-rr for udp-echo; udp-stream for udp-sink.
TargetProtocol labServerProtocol(LabServerKind kind);

// The session's lab target in `mode`, or nullptr.
const Target* labTargetOf(const Session& session, LabMode mode);

// One target per chosen mode that has no lab target in the session yet, named by the mode's
// identifier, in the next colours of the session's palette, with the protocol of the server
// and its defaults. The lab keeps the session's CPUs and modes and adds the new modes; the MTU
// is the chosen one (one wire for every lab target), and so is the client's placement. Refused
// in one line without modes, when every chosen mode has its lab target already, with an MTU
// outside kMinLabMtu..kMaxLabMtu, when the session's lab targets run another server (one lab
// runs one server), or when a mode of the lab cannot have the placement
// (checkLabClientPlacement).
Result<LabTargetsEdit> labTargets(const Session& session, const LabTargetChoice& choice);

} // namespace loadscope::app::lab
