#pragma once

// Random damage for the suites that hold a reader to an independent one.

#include <QRandomGenerator>

namespace loadscope::test {

// One edit of non-empty `text` at a random place: `c` written over a
// character or inserted before it, or the character removed.
template <typename Text, typename Char>
void randomEdit(Text& text, Char c, QRandomGenerator& random) {
    const qsizetype at = qsizetype(random.bounded(int(text.size())));
    switch (random.bounded(3)) {
    case 0:
        text[at] = c;
        break;
    case 1:
        text.insert(at, c);
        break;
    default:
        text.remove(at, 1);
        break;
    }
}

} // namespace loadscope::test
