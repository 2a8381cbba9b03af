#pragma once

#include <QDialog>
#include <QPointer>
#include <QStringList>

class QComboBox;
class QListWidget;
class QPushButton;

namespace loadscope::app {
class SessionDocument;
}

namespace loadscope::ui {

class FieldError;

// Adds saved outputs of ab, wrk, wrk2, h2load, memtier_benchmark and netperf to a
// target of the open session, so they chart beside new runs. All or nothing:
// when one file is not recognised, nothing is added and the dialog says why.
class ImportDialog : public QDialog {
    Q_OBJECT

public:
    explicit ImportDialog(app::SessionDocument* document, QWidget* parent = nullptr);

    void setFiles(const QStringList& paths);
    QStringList files() const;
    // An existing target's name, or a new one to create.
    void setTargetName(const QString& name);
    // Deployment mode of a new target: an identifier ("container-nat") or the user's words.
    void setMode(const QString& mode);
    QString errorMessage() const;

    // Reads the files and adds their reports to the document; false with the
    // reason shown in the dialog.
    bool importFiles();

    void accept() override;

Q_SIGNALS:
    // "Imported 2 reports into the new target nat".
    void importFinished(const QString& summary);

private:
    void addFiles();
    void updateState();

    QPointer<app::SessionDocument> m_document;
    QListWidget* m_files = nullptr;
    QPushButton* m_removeFile = nullptr;
    QComboBox* m_target = nullptr;
    QComboBox* m_mode = nullptr;
    FieldError* m_error = nullptr;
    QPushButton* m_importButton = nullptr;
};

} // namespace loadscope::ui
