#pragma once

// The target editor suites' fixture: an editor shown on a document of one http target.

#include "app/session/session_document.h"
#include "ui/shell/target_editor.h"

#include <QTest>
#include <memory>

namespace loadscope::test {

class TargetEditorFixture {
public:
    // Call from init(): false when the editor did not show.
    bool setUp() {
        m_document = std::make_unique<app::SessionDocument>();
        app::Target target = app::makeTarget(QStringLiteral("host"), app::DeploymentMode::Host, 0);
        target.http.url = QStringLiteral("http://127.0.0.1:8080/");
        m_id = m_document->addTarget(target);
        m_document->setModified(false);
        m_editor = std::make_unique<ui::TargetEditor>(m_document.get());
        m_editor->setTargetId(m_id);
        m_editor->show();
        return QTest::qWaitForWindowExposed(m_editor.get());
    }
    // Call from cleanup().
    void tearDown() {
        m_editor.reset();
        m_document.reset();
    }

    template <typename T> T* field(const char* name) const {
        auto* widget = m_editor->findChild<T*>(QString::fromLatin1(name));
        if (!widget)
            qFatal("no field %s", name);
        return widget;
    }
    const app::Target& target() const { return *m_document->session().findTarget(m_id); }

    std::unique_ptr<app::SessionDocument> m_document;
    std::unique_ptr<ui::TargetEditor> m_editor;
    QUuid m_id;
};

} // namespace loadscope::test
