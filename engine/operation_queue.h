#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace loadscope::engine {

// Outstanding operation kinds of one connection, oldest first, so that each
// reply is matched with the command it answers. Grows to the pipeline depth
// once and then never allocates again.
class OperationQueue {
public:
    bool empty() const { return m_count == 0; }
    uint8_t front() const { return m_slots[m_head]; }
    void push(uint8_t operation) {
        if (m_count == m_slots.size())
            grow();
        m_slots[(m_head + m_count) & (m_slots.size() - 1)] = operation;
        ++m_count;
    }
    void pop() {
        m_head = (m_head + 1) & (m_slots.size() - 1);
        --m_count;
    }
    void clear() {
        m_head = 0;
        m_count = 0;
    }

private:
    void grow() {
        std::vector<uint8_t> larger(std::max<size_t>(8, m_slots.size() * 2));
        for (size_t i = 0; i < m_count; ++i)
            larger[i] = m_slots[(m_head + i) & (m_slots.size() - 1)];
        m_slots = std::move(larger);
        m_head = 0;
    }

    std::vector<uint8_t> m_slots; // size is a power of two
    size_t m_head = 0;
    size_t m_count = 0;
};

} // namespace loadscope::engine
