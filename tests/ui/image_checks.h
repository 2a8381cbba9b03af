#pragma once

// Judging rendered images in the ui suites and the screenshot test.

#include <QImage>

namespace loadscope::test {

// Variance of the grey levels: 0 for an image of one colour.
inline double greyVariance(const QImage& image) {
    const QImage grey = image.convertToFormat(QImage::Format_Grayscale8);
    double sum = 0;
    double squares = 0;
    const double count = double(grey.width()) * grey.height();
    for (int y = 0; y < grey.height(); ++y) {
        const uchar* line = grey.constScanLine(y);
        for (int x = 0; x < grey.width(); ++x) {
            sum += line[x];
            squares += double(line[x]) * line[x];
        }
    }
    const double mean = sum / count;
    return squares / count - mean * mean;
}

} // namespace loadscope::test
