#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QStringView>
#include <optional>

namespace loadscope::app {

// The bytes of standard base64 text, or nullopt where Qt's strict decoding
// (QByteArray::fromBase64Encoding with AbortOnBase64DecodingErrors) refuses
// it. Text as Loadscope writes it (padded, a multiple of four characters, no
// stray bits) is decoded here straight from the UTF-16 in one pass; anything
// else goes to Qt's decoder, so the two accept and return the same. Opening a
// session decodes every stored histogram: Qt's byte-at-a-time loop and the
// Latin-1 copy before it were a sixth of the time.
std::optional<QByteArray> decodeBase64(QStringView text);
// decodeBase64's own pass: nullopt for any text that is not canonical (then
// empty, or with characters, padding or bits elsewhere than Loadscope writes).
std::optional<QByteArray> decodeCanonicalBase64(QStringView text);
// The same pass over Latin-1 bytes: a byte above 0x7f is outside the alphabet.
std::optional<QByteArray> decodeCanonicalBase64(QByteArrayView text);

} // namespace loadscope::app
