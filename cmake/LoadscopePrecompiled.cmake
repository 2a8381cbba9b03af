# Precompiled headers: the Qt, QCoro and standard headers most files of a layer
# include, parsed once per layer instead of once per file (parsing them is about
# a third of compiling a typical app/ or test file). Sources still include what
# they use; a precompiled header only makes that cheaper. LOADSCOPE_PCH=OFF
# builds without them, to check that every file includes what it needs.

option(LOADSCOPE_PCH "Precompile the common headers of each layer" ON)

set(LOADSCOPE_PCH_STD <algorithm> <chrono> <cmath> <cstdint> <map> <memory> <optional>
  <string> <string_view> <vector>)
set(LOADSCOPE_PCH_CORE ${LOADSCOPE_PCH_STD} <QByteArray> <QDir> <QFile> <QFileInfo>
  <QJsonArray> <QJsonDocument> <QJsonObject> <QObject> <QRegularExpression> <QString>
  <QStringList> <QUuid> <QCoroTask>)
set(LOADSCOPE_PCH_WIDGETS ${LOADSCOPE_PCH_CORE} <QChart> <QChartView> <QColor>
  <QComboBox> <QFormLayout> <QHBoxLayout> <QLabel> <QLineEdit> <QPointer> <QVBoxLayout>
  <QWidget>)

# loadscope_precompile(TARGET CORE|WIDGETS): TARGET precompiles that layer's list.
function(loadscope_precompile target layer)
  if(LOADSCOPE_PCH)
    target_precompile_headers(${target} PRIVATE ${LOADSCOPE_PCH_${layer}})
  endif()
endfunction()

# loadscope_reuse_precompiled(TARGET HOST): TARGET, which has HOST's definitions,
# uses HOST's precompiled header.
function(loadscope_reuse_precompiled target host)
  if(LOADSCOPE_PCH)
    target_precompile_headers(${target} REUSE_FROM ${host})
  endif()
endfunction()

# loadscope_precompile_test(TARGET LIBS...): test suites of one directory that
# link the same layer share one precompiled header, made by the first of them
# (a header precompiled with other libraries' definitions would not be valid).
function(loadscope_precompile_test target)
  if(NOT LOADSCOPE_PCH)
    return()
  endif()
  if("loadscope_ui" IN_LIST ARGN)
    set(layer widgets)
    set(headers ${LOADSCOPE_PCH_WIDGETS} <QSignalSpy> <QTest>)
  elseif("loadscope_app" IN_LIST ARGN OR "loadscope_cli" IN_LIST ARGN)
    set(layer app)
    set(headers ${LOADSCOPE_PCH_CORE} <QSignalSpy> <QTemporaryDir> <QTest>)
  elseif("loadscope_engine" IN_LIST ARGN)
    set(layer engine)
    set(headers ${LOADSCOPE_PCH_STD} <QTest>)
  else()
    return()
  endif()
  # The test libraries that bring no Qt module of their own do not change the
  # definitions; the ones that do make a layer of their own.
  if("loadscope_test_support" IN_LIST ARGN AND layer STREQUAL "engine")
    set(layer engine_network)
  endif()
  set(key LOADSCOPE_PCH_HOST_${layer}_${CMAKE_CURRENT_SOURCE_DIR})
  get_property(host GLOBAL PROPERTY ${key})
  if(host)
    target_precompile_headers(${target} REUSE_FROM ${host})
  else()
    target_precompile_headers(${target} PRIVATE ${headers})
    set_property(GLOBAL PROPERTY ${key} ${target})
  endif()
endfunction()
