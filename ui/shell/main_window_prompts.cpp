// MainWindow's default prompts: window-modal dialogs opened with open(), so
// that a question asked from a slot or a coroutine runs no nested event loop
// under it. Each dialog deletes itself on close and answers from its
// finished() signal, which a dialog emits once whichever way it ends (a
// button, Escape, the window's close button).
#include "ui/shell/main_window.h"

#include <QAbstractButton>
#include <QFileDialog>
#include <QMessageBox>

namespace loadscope::ui {

namespace {

// A file dialog's answer: the chosen path, or an empty string on cancel.
void answerFromFileDialog(QFileDialog* dialog, MainWindow::Prompts::FileAnswer answer) {
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(
        dialog, &QDialog::finished, dialog, [dialog, answer = std::move(answer)](int result) {
            answer(result == QDialog::Accepted ? dialog->selectedFiles().value(0) : QString());
        });
    dialog->open();
}

} // namespace

MainWindow::Prompts MainWindow::dialogPrompts(QWidget* parent) {
    Prompts prompts;
    prompts.unsavedChanges = [parent](const QString& sessionName, Prompts::UnsavedAnswer answer) {
        auto* box =
            new QMessageBox(QMessageBox::Warning, tr("Unsaved Changes"),
                            tr("The session “%1” has changes that are not saved.").arg(sessionName),
                            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
        box->setInformativeText(tr("Save them before going on?"));
        box->setDefaultButton(QMessageBox::Save);
        box->setAttribute(Qt::WA_DeleteOnClose);
        connect(box, &QDialog::finished, box, [box, answer = std::move(answer)] {
            switch (box->standardButton(box->clickedButton())) {
            case QMessageBox::Save:
                answer(UnsavedChoice::Save);
                break;
            case QMessageBox::Discard:
                answer(UnsavedChoice::Discard);
                break;
            default:
                answer(UnsavedChoice::Cancel);
                break;
            }
        });
        box->open();
    };
    prompts.saveFileName = [parent](const QString& title, const QString& suggested,
                                    const QString& filter, Prompts::FileAnswer answer) {
        auto* dialog = new QFileDialog(parent, title, suggested, filter);
        dialog->setAcceptMode(QFileDialog::AcceptSave);
        answerFromFileDialog(dialog, std::move(answer));
    };
    prompts.openFileName = [parent](const QString& title, const QString& directory,
                                    const QString& filter, Prompts::FileAnswer answer) {
        auto* dialog = new QFileDialog(parent, title, directory, filter);
        dialog->setFileMode(QFileDialog::ExistingFile);
        answerFromFileDialog(dialog, std::move(answer));
    };
    prompts.directory = [parent](const QString& title, const QString& directory,
                                 Prompts::FileAnswer answer) {
        auto* dialog = new QFileDialog(parent, title, directory);
        dialog->setFileMode(QFileDialog::Directory);
        dialog->setOption(QFileDialog::ShowDirsOnly);
        answerFromFileDialog(dialog, std::move(answer));
    };
    prompts.error = [parent](const QString& title, const QString& message) {
        auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, parent);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    };
    return prompts;
}

} // namespace loadscope::ui
