#pragma once

// `loadscope-cli serve` as a user runs it, for the suites that check the command itself.
#include "cli_process.h"
#include "stop_with_test.h"

#include <QDeadlineTimer>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace loadscope::testing {

// `loadscope-cli serve KIND ...` on 127.0.0.1 and a free port (TCP, or UDP with --udp),
// stopped with the test.
class ServeProcess {
public:
    explicit ServeProcess(const QStringList& arguments) {
        stopWithTest(m_process);
        m_process.start(cliPath(), QStringList{QStringLiteral("serve")} << arguments);
        QByteArray line;
        const QDeadlineTimer deadline(10'000);
        while (!line.endsWith('\n') && !deadline.hasExpired() &&
               m_process.state() != QProcess::NotRunning) {
            m_process.waitForReadyRead(100);
            line += m_process.readLine();
        }
        // "listening on udp 127.0.0.1:PORT" for a UDP server.
        if (line.startsWith("listening on udp "))
            line.remove(13, 4);
        const QByteArray prefix = "listening on 127.0.0.1:";
        if (line.startsWith(prefix))
            m_port = quint16(line.trimmed().mid(prefix.size()).toUInt());
    }
    ~ServeProcess() {
        m_process.terminate();
        if (!m_process.waitForFinished(5000)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    quint16 port() const { return m_port; }
    QString address() const { return QStringLiteral("127.0.0.1:%1").arg(m_port); }

private:
    QProcess m_process;
    quint16 m_port = 0;
};

} // namespace loadscope::testing
