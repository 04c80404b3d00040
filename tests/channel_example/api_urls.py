from django.urls import path

from tests.channel_example.views import example_ping

urlpatterns = [path("example/ping", example_ping, name="api-example-ping")]
