#pragma once

#include "app/session/json_reader.h"
#include "app/session/session.h"

#include <QJsonObject>

// The JSON of a target's protocol options and lab placement, and of the
// session's lab: the pieces session_json.cpp writes and reads a target and a
// session from (the shape is described in session_json.h). Readers report a
// broken rule through `json`, naming the key, as every other reader does.
namespace loadscope::app {

// The largest request, response, value or chunk a session may ask for.
inline constexpr int kMaxMessageSize = 1 << 30;

QJsonObject httpToJson(const HttpOptions& http);
HttpOptions httpFromJson(const JsonReader& json);
QJsonObject memcacheToJson(const MemcacheOptions& memcache);
MemcacheOptions memcacheFromJson(const JsonReader& json);
QJsonObject tcpRrToJson(const TcpRrOptions& tcpRr);
TcpRrOptions tcpRrFromJson(const JsonReader& json);

QJsonObject labPlacementToJson(const LabPlacement& lab);
LabPlacement labPlacementFromJson(const JsonReader& json);
QJsonObject labSetupToJson(const LabSetup& lab);
LabSetup labSetupFromJson(const JsonReader& json);
// A session's host: {"name","destination"[,"command"]} (the command only when
// it is not the default), each field checked by host.h's rules.
QJsonObject hostToJson(const Host& host);
Host hostFromJson(const JsonReader& json);

} // namespace loadscope::app
