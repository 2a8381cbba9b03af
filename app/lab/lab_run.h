#pragma once

#include "app/common/result.h"
#include "app/lab/lab_mode.h"
#include "app/lab/lab_server.h"
#include "app/session/session.h"

#include <string>
#include <vector>

namespace loadscope::app::lab {

// What `loadscope-cli lab sandbox` builds and runs.
struct LabSpec {
    int mtu = 1500;
    std::vector<int> clientCpus; // empty: defaultCpus()
    std::vector<int> serverCpus;
    std::vector<LabMode> modes;
    LabServerSpec server;
    // Where the command, the load's client, runs once the lab stands: the client namespace
    // across the wire, or the server host's namespace (a local client of every mode).
    LabClientPlacement client = LabClientPlacement::Wire;
    std::vector<std::string> command;
    std::string cliPath; // the loadscope-cli executable, for the embedded servers
};

// The default pinning, as on two machines: the server on the last CPU this process may use,
// the client on the others (both on the one CPU of a single-CPU machine).
struct CpuSplit {
    std::vector<int> client;
    std::vector<int> server;
};
CpuSplit defaultCpus();

// Rules a spec must obey before a sandbox is made: modes given once each, an MTU in range, a
// command, the server's options, modes that can have the client placement
// (checkLabClientPlacement).
Result<void> checkLabSpec(const LabSpec& spec);

// Builds the lab in a new sandbox, starts the server in every mode, prints the lab's one JSON
// line on stdout and runs the command in the client namespace (the server host's with
// LabClientPlacement::ServerHost) with LOADSCOPE_LAB_HOST_NETNS,
// LOADSCOPE_LAB_RANGE and LOADSCOPE_LAB_SERVER_HOST_PID (a process of the server host's
// namespace, as /proc names it) set; tears everything down when it exits. Returns the command's
// exit status, or 2 after one line on stderr ("lab sandbox: mode container-nat: ...") when the lab
// could not be built.
Result<int> runLab(const LabSpec& spec);

} // namespace loadscope::app::lab
